import { spawn } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { CLI, spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The README's one-minute tour, end to end with real processes: the CLI asks "Ship it?" and waits; a person clicks
 * Yes in the inbox in Chromium; the CLI prints `true`. Once on the embedded default (`npm start`'s entry, dev token
 * read from its banner), once across two `askgate serve` processes and a worker on one Redis.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

function cliAsk(
  url: string,
  token: string,
): { done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [CLI, 'interactions', 'ask', 'Ship it?', '--format', 'confirm', '--wait'], {
    env: { PATH: process.env['PATH'] ?? '', ASKGATE_URL: url, ASKGATE_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr }))) };
}

async function clickYesInInbox(inboxUrl: string, token: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(`${inboxUrl}/inbox#token=${token}`);
    const card = page.locator('li.card', { hasText: 'Ship it?' });
    await card.getByRole('button', { name: 'Yes' }).click({ timeout: 10_000 });
    await card.waitFor({ state: 'detached', timeout: 10_000 });
  } finally {
    await page.close();
  }
}

describe('the one-minute tour', () => {
  it('on the embedded default: the CLI returns true after Yes is clicked in the inbox', async () => {
    const gateway: GatewayProcess = await spawnGateway('all', {});
    try {
      const token = /ASKGATE_TOKEN=(\S+)/.exec(gateway.output())?.[1];
      expect(gateway.output()).toMatch(/in-memory store/);
      expect(gateway.output()).toContain(`${gateway.url}/inbox#token=`);
      expect(token).toBeDefined();
      const ask = cliAsk(gateway.url as string, token as string);
      await clickYesInInbox(gateway.url as string, token as string);
      const result = await ask.done;
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('true');
      expect(result.code).toBe(0);
    } finally {
      await gateway.stop();
    }
  });

  it('across two serve processes and a worker on one Redis: asked on one, answered in the inbox of the other', async () => {
    const redis: RedisServerHandle = await startRedisServer();
    const token = 'tour-token-0123456789abcdef';
    const env = {
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: '{tour}:',
      ASKGATE_TOKENS: JSON.stringify({ [token]: { identity: 'me', scopes: ['read', 'write', 'answer'] } }),
    };
    const [a, b, worker] = await Promise.all([
      spawnGateway('serve', env),
      spawnGateway('serve', env),
      spawnGateway('worker', env),
    ]);
    try {
      const ask = cliAsk(a.url as string, token);
      await clickYesInInbox(b.url as string, token);
      const result = await ask.done;
      expect(result.stdout.trim()).toBe('true');
      expect(result.code).toBe(0);
    } finally {
      await Promise.all([a.stop(), b.stop(), worker.stop()]);
      await redis.stop();
    }
  });
});
