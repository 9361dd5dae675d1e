import { readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Every environment variable the gateway's code reads: `env['X']`, `process.env['X']`, or a reader `(env, 'X')`. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  const pattern = /(?:env\[['"]|\((?:env|e), ['"])([A-Z][A-Z0-9_]{3,})['"]/g;
  for (const root of ['src', 'channels', 'forms']) {
    for (const file of sources(root)) {
      for (const match of readFileSync(file, 'utf8').matchAll(pattern)) read.add(match[1] as string);
    }
  }
  return read;
}

describe('askgate.env.example', () => {
  it('names every variable askgate reads (test-only ones aside)', () => {
    const read = [...variablesRead()].filter((name) => !NOT_SETTINGS.has(name) && !name.startsWith('ASKGATE_TEST_'));
    // A floor, so a scan that silently stopped matching cannot pass: the README's table alone names more than 30.
    expect(read.length).toBeGreaterThan(30);
    const missing = read.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(EXAMPLE));
    expect(missing).toEqual([]);
  });

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
