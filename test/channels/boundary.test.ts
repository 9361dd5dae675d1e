import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Webhook modules verify signatures with pure functions before anything is parsed; they must not reach into the
 * core (src/), the SDK, or a vendor SDK, so the verification can be read and trusted alone.
 */
const CHANNELS = join(import.meta.dirname, '..', '..', 'channels');
const FORBIDDEN = [
  /from ['"][./]*src\//,
  /from ['"]grammy/,
  /from ['"]@slack\//,
  /from ['"]twilio/,
  /from ['"]express/,
];

describe('channel webhook modules', () => {
  const webhooks = readdirSync(CHANNELS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(CHANNELS, d.name, 'webhook.ts'))
    .filter((p) => existsSync(p));

  it('exist for the platform channels', () => {
    expect(webhooks.some((p) => p.includes('telegram'))).toBe(true);
  });

  for (const path of webhooks) {
    it(`${path.slice(CHANNELS.length + 1)} imports neither the core nor a vendor SDK`, () => {
      const imports = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => /^\s*import\b/.test(line) || /\bfrom ['"]/.test(line));
      for (const line of imports)
        for (const rule of FORBIDDEN) expect(line, `forbidden import in ${path}`).not.toMatch(rule);
    });
  }
});
