import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnGateway } from '../helpers/process.js';

/**
 * Dev mode as `npm start` runs it: the token survives a restart (a mode-600 file under the state directory),
 * ASKGATE_DEV_TOKEN names one outright, and an all-scopes token never listens on a non-loopback address.
 */

const MAIN = join(process.cwd(), 'dist/src/main.js');
const tokenIn = (output: string): string | undefined => /ASKGATE_TOKEN=(\S+)/.exec(output)?.[1];

async function listStatus(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/api/interactions`, { headers: { authorization: `Bearer ${token}` } })).status;
}

describe('dev mode', () => {
  it('keeps its token across a restart, in a file only its owner reads', async () => {
    const state = mkdtempSync(join(tmpdir(), 'askgate-dev-'));
    const first = await spawnGateway('all', { XDG_STATE_HOME: state });
    const token = tokenIn(first.output());
    await first.stop();
    const second = await spawnGateway('all', { XDG_STATE_HOME: state });
    try {
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(tokenIn(second.output())).toBe(token);
      expect(second.output()).toContain(`kept in ${join(state, 'askgate', 'dev-token')}`);
      const file = join(state, 'askgate', 'dev-token');
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(await listStatus(second.url as string, token as string)).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('takes ASKGATE_DEV_TOKEN as the token when it is set', async () => {
    const chosen = 'my-own-dev-token-0123456789';
    const gateway = await spawnGateway('all', { ASKGATE_DEV_TOKEN: chosen });
    try {
      expect(tokenIn(gateway.output())).toBe(chosen);
      expect(await listStatus(gateway.url as string, chosen)).toBe(200);
    } finally {
      await gateway.stop();
    }
  });

  it('refuses to start in dev mode on a non-loopback HOST, naming ASKGATE_TOKENS', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env['PATH'] ?? '',
        PORT: '0',
        HOST: '0.0.0.0',
        XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'askgate-dev-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(out).toMatch(
      /^askgate: bad configuration: ASKGATE_TOKENS: is unset, so askgate would start in dev mode .* on 0\.0\.0\.0/m,
    );
    expect(out).not.toMatch(/ASKGATE_TOKEN=/);
  });
});
