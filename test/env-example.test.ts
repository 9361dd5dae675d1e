import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const EXAMPLE = readFileSync('askgate.env.example', 'utf8');

/** Variables read for tests or from the user's own environment (not askgate settings), so not in the example. */
const NOT_SETTINGS = new Set(['NODE_ENV', 'HOME', 'XDG_STATE_HOME', 'ASKGATE_URL', 'ASKGATE_TOKEN']);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

/**
 * Every environment variable the code under `roots` reads: `env['X']`, `process.env['X']`, a reader `(env, 'X')`, or
 * a channel's group `envGroup(env, ['X', …]` and its `get('X')`.
 */
function variablesRead(roots: readonly string[]): Set<string> {
  const read = new Set<string>();
  const pattern = /(?:env\[['"]|\((?:env|e), ['"]|\bget\(['"])([A-Z][A-Z0-9_]{3,})['"]/g;
  for (const root of roots) {
    for (const file of sources(root)) {
      for (const match of readFileSync(file, 'utf8').matchAll(pattern)) read.add(match[1] as string);
    }
  }
  return read;
}

/** The channel folders: each documents its own variables in its README (a new channel touches no file outside it). */
const CHANNEL_FOLDERS = readdirSync('channels').filter((name) => existsSync(join('channels', name, 'channel.ts')));

describe('askgate.env.example', () => {
  it('names every variable askgate reads outside the channel folders (test-only ones aside)', () => {
    const read = [...variablesRead(['src', 'forms'])].filter(
      (name) => !NOT_SETTINGS.has(name) && !name.startsWith('ASKGATE_TEST_'),
    );
    // A floor, so a scan that silently stopped matching cannot pass: the README's table alone names more than 30.
    expect(read.length).toBeGreaterThan(30);
    const missing = read.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(EXAMPLE));
    expect(missing).toEqual([]);
  });

  it('finds the channels’ variables, the required ones of a group included', () => {
    // A floor, so a scan that silently stopped matching cannot pass the per-channel checks below.
    const read = variablesRead(['channels']);
    expect(read).toContain('TELEGRAM_BOT_TOKEN');
    expect(read).toContain('TELEGRAM_API_ROOT');
    expect(read.size).toBeGreaterThan(15);
  });

  for (const channel of CHANNEL_FOLDERS) {
    it(`channels/${channel}: its README names every variable the channel reads`, () => {
      const readme = readFileSync(join('channels', channel, 'README.md'), 'utf8');
      const missing = [...variablesRead([join('channels', channel)])].filter((name) => !readme.includes(name));
      expect(missing).toEqual([]);
    });
  }

  it('names every variable of the README configuration table', () => {
    const readme = readFileSync('README.md', 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    const named = rows.flatMap((row) =>
      [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]),
    );
    expect(named).toContain('REDIS_URL');
    const missing = named.filter(
      (name) =>
        name !== undefined && !name.startsWith('ASKGATE_TEST_') && !new RegExp(`^#? ?${name}=`, 'm').test(EXAMPLE),
    );
    expect(missing).toEqual([]);
  });

  it('holds a placeholder token that askgate refuses to start with, naming the variable and the fix', () => {
    const tokens = /^ASKGATE_TOKENS=(.*)$/m.exec(EXAMPLE)?.[1];
    expect(tokens).toBeDefined();
    expect(() => loadConfig({ ASKGATE_TOKENS: tokens, HOST: '0.0.0.0' })).toThrow(
      /ASKGATE_TOKENS: entry 1: is the placeholder of askgate\.env\.example; replace it with a long random string/,
    );
  });
});
