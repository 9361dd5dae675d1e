import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RenderLimitError } from '../../channels/limits.js';

/**
 * The channel boundary. Every channel's verify.ts and webhook.ts are pure functions — signatures are checked before
 * anything is parsed — so they must not reach into the core (src/), express, or a vendor SDK, and can be read and
 * trusted alone; so must the shared pipeline and HTTP types they run in. Every channel speaks one verify shape and
 * throws one render-limit error.
 */
const CHANNELS = join(import.meta.dirname, '..', '..', 'channels');
const FORBIDDEN = [
  /from ['"][./]*src\//,
  /from ['"]grammy/,
  /from ['"]@slack\//,
  /from ['"]twilio/,
  /from ['"]discord/,
  /from ['"]@discordjs\//,
  /from ['"]express/,
];
/**
 * The allowed exceptions. One vendor import: Twilio's signature algorithm (with its URL normalisation rules) is the
 * twilio package's own `validateRequest`, so channels/twilio/verify.ts uses it rather than a copy that could drift.
 * One type: the verdict shape every verification in askgate returns is the core's `VerifyResult`, which http.ts
 * re-exports — `import type`, erased at build, so nothing of the core is loaded.
 */
const ALLOWED: Readonly<Record<string, RegExp>> = {
  'twilio/verify.ts': /^import twilio from 'twilio';$/,
  'http.ts': /^import type \{ VerifyResult \} from '\.\.\/src\/core\/verify-result\.js';$/,
};

const channelDirs = readdirSync(CHANNELS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const modules = (file: string): string[] =>
  channelDirs.map((d) => `${d}/${file}`).filter((p) => existsSync(join(CHANNELS, p)));
const importsOf = (path: string): string[] =>
  readFileSync(join(CHANNELS, path), 'utf8')
    .split('\n')
    .filter((line) => /^\s*import\b/.test(line) || /\bfrom ['"]/.test(line));

describe('channel webhook and verify modules', () => {
  const verifies = modules('verify.ts');
  const webhooks = modules('webhook.ts');

  it('exist for every platform channel, a verify.ts beside every webhook.ts', () => {
    for (const name of ['telegram', 'slack', 'whatsapp', 'twilio', 'discord']) {
      expect(verifies).toContain(`${name}/verify.ts`);
      expect(webhooks).toContain(`${name}/webhook.ts`);
    }
    for (const webhook of webhooks) expect(verifies).toContain(webhook.replace('webhook.ts', 'verify.ts'));
  });

  for (const path of [...verifies, ...webhooks, 'http.ts', 'pipeline.ts']) {
    it(`${path} imports neither the core, express, nor a vendor SDK`, () => {
      for (const line of importsOf(path)) {
        if (ALLOWED[path]?.test(line.trim())) continue;
        for (const rule of FORBIDDEN) expect(line, `forbidden import in ${path}`).not.toMatch(rule);
      }
    });
  }

  for (const path of verifies) {
    it(`${path} exports verify({secret, rawBody, headers, url?, now}) → VerifyResult, refusing an unsigned request`, async () => {
      const module = (await import(pathToFileURL(join(CHANNELS, path)).href)) as Record<string, unknown>;
      const verify = module['verify'];
      expect(typeof verify).toBe('function');
      const verdict = (verify as (input: unknown) => unknown)({
        secret: 'a-configured-secret',
        rawBody: Buffer.from('{}'),
        headers: {},
        url: 'https://askgate.example.com/channels/x',
        now: Date.now(),
      });
      expect(verdict).toMatchObject({ ok: false, reason: expect.any(String) });
    });
  }
});

describe('the one render-limit error', () => {
  it('is declared only in channels/limits.ts, and every channel limits.ts re-exports it', async () => {
    for (const dir of channelDirs)
      for (const file of readdirSync(join(CHANNELS, dir)).filter((f) => f.endsWith('.ts')))
        expect(readFileSync(join(CHANNELS, dir, file), 'utf8'), `${dir}/${file}`).not.toMatch(/class \w*LimitError\b/);
    for (const path of modules('limits.ts')) {
      const module = (await import(pathToFileURL(join(CHANNELS, path)).href)) as Record<string, unknown>;
      expect(module['RenderLimitError'], path).toBe(RenderLimitError);
    }
  });
});
