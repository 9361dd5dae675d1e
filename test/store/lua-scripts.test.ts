import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVERSATION_REFS } from '../../src/store/delivery-refs.js';
import { KEY_NAMES } from '../../src/store/keys.js';
import { RECIPIENT_LEVELS } from '../../src/store/redis/lookups.js';
import { SCRIPT_FILES, resolveLua, scriptLua } from '../../src/store/redis/scripts/index.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The Lua scripts as files (src/store/redis/scripts/*.lua, helpers in includes/) and their one loader: every file is
 * registered or included, each header states its KEYS, ARGV and returns, includes land once per scope, placeholders
 * take TypeScript's values, and no script builds a helper it never calls.
 */

const DIR = join(import.meta.dirname, '..', '..', 'src', 'store', 'redis', 'scripts');
const scripts = readdirSync(DIR).filter((f) => f.endsWith('.lua'));
const includes = readdirSync(join(DIR, 'includes')).filter((f) => f.endsWith('.lua'));

/** The code of a resolved script without its comments (`--[[ ]]` blocks and `--` lines). */
function code(lua: string): string {
  return lua.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
}

/** The names of the `local function`s a resolved script defines, with their indentation. */
function functions(lua: string): Array<{ name: string; indent: string }> {
  return [...code(lua).matchAll(/^([ \t]*)local function ([A-Za-z_]\w*)/gm)].map((m) => ({
    indent: m[1] as string,
    name: m[2] as string,
  }));
}

describe('the script files', () => {
  it('registers every script file, and every include is used by a script', () => {
    expect([...SCRIPT_FILES].map((f) => `${f}.lua`).sort()).toEqual([...scripts].sort());
    const used = new Set<string>();
    const walk = (file: string): void => {
      for (const m of readFileSync(file, 'utf8').matchAll(/--- @include "(?:includes\/)?([^"]+)"/g)) {
        if (used.has(m[1] as string)) continue;
        used.add(m[1] as string);
        walk(join(DIR, 'includes', `${m[1]}.lua`));
      }
    };
    for (const s of scripts) walk(join(DIR, s));
    expect([...used].map((u) => `${u}.lua`).sort()).toEqual([...includes].sort());
  });

  it('opens every script with its header: KEYS as many as its name says, ARGV, and what it returns', () => {
    for (const file of scripts) {
      const text = readFileSync(join(DIR, file), 'utf8');
      const header = /^--\[\[\n([\s\S]*?)\n\]\]\n/.exec(text)?.[1];
      expect(header, file).toBeDefined();
      const name = file.replace(/-\d+\.lua$/, '');
      expect(header, file).toMatch(new RegExp(`^  ${name}: `));
      const keys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
      const listed = [...(header as string).matchAll(/^ {2}KEYS\[(\d+)\]/gm)].map((m) => Number(m[1]));
      expect(listed, file).toEqual(Array.from({ length: keys }, (_, i) => i + 1));
      expect(header, file).toMatch(/^ {2}ARGV\[1\]/m);
      expect(header, file).toMatch(/Returns/);
    }
  });

  it('resolves every script: no directive or placeholder left, and every helper it builds, it calls', () => {
    for (const file of SCRIPT_FILES) {
      const lua = scriptLua(file);
      expect(lua, file).not.toMatch(/@include|\{\{/);
      const body = code(lua);
      const constants = [...body.matchAll(/^[ \t]*local ([A-Z][A-Z0-9_]*) =/gm)].map((m) => ({ name: m[1] as string }));
      for (const { name } of [...functions(lua), ...constants]) {
        const uses = body.match(new RegExp(`(^|[^\\w.])${name}(?!\\w)`, 'g')) ?? [];
        expect(uses.length, `${file} defines ${name} and never calls it`).toBeGreaterThan(1);
      }
      // Each helper is defined once in a scope: a second top-level definition is a double include.
      const topLevel = functions(lua)
        .filter((f) => f.indent === '')
        .map((f) => f.name);
      expect(new Set(topLevel).size, file).toBe(topLevel.length);
    }
  });

  it("builds resolve's lookup and run helpers only inside the functions the claim calls when it needs them", () => {
    const lua = scriptLua('resolve-3');
    const all = functions(lua);
    const topLevel = all.filter((f) => f.indent === '').map((f) => f.name);
    expect(topLevel).toContain('lookupHelpers');
    expect(topLevel).toContain('runHelpers');
    for (const helper of ['dropLookups', 'lookupHash', 'dropDelivery', 'setPieces', 'joinedRun', 'unfoldRun']) {
      expect(topLevel, helper).not.toContain(helper);
      expect(
        all.filter((f) => f.name === helper),
        helper,
      ).toEqual([{ name: helper, indent: '  ' }]);
    }
    // What the top level already has (splitLines, for the record) is not built again inside runHelpers.
    expect(all.filter((f) => f.name === 'splitLines')).toEqual([{ name: 'splitLines', indent: '' }]);
  });
});

describe('the loader', () => {
  let dir: string;
  let from: URL;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'askgate-lua-'));
    from = pathToFileURL(join(dir, 'script.lua'));
    const write = (name: string, text: string): void => writeFileSync(join(dir, `${name}.lua`), text);
    write('one', 'local function one() return 1 end\n');
    write('two', '--- @include "one"\nlocal function two() return one() + 1 end\n');
    write('loop-a', '--- @include "loop-b"\n');
    write('loop-b', '--- @include "loop-a"\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('includes a file once at the top level, its own includes first', () => {
    const lua = resolveLua('--- @include "two"\n--- @include "one"\n--- @include "two"\nreturn two()\n', from);
    expect(lua).toBe('local function one() return 1 end\nlocal function two() return one() + 1 end\nreturn two()\n');
  });

  it('includes into an indented block what the top level lacks, once per block', () => {
    const lua = resolveLua(
      [
        '--- @include "one"',
        'local function f()',
        '  --- @include "two"',
        '  --- @include "one"',
        '  return two',
        'end',
        'local function g()',
        '  --- @include "two"',
        '  return two',
        'end',
        '',
      ].join('\n'),
      from,
    );
    expect(lua).toBe(
      [
        'local function one() return 1 end',
        'local function f()',
        '  local function two() return one() + 1 end',
        '  return two',
        'end',
        'local function g()',
        '  local function two() return one() + 1 end',
        '  return two',
        'end',
        '',
      ].join('\n'),
    );
  });

  it('fails loudly on a missing include, a cycle, an unknown placeholder and a malformed one', () => {
    expect(() => resolveLua('--- @include "nowhere"\n', from)).toThrow(/cannot read the Lua script .*nowhere\.lua/);
    expect(() => resolveLua('--- @include "loop-a"\n', from)).toThrow(/includes itself/);
    expect(() => resolveLua('return {{NO_SUCH_CONSTANT}}\n', from)).toThrow(
      /unknown placeholder \{\{NO_SUCH_CONSTANT\}\}/,
    );
    expect(() => resolveLua('return {{KEY_NAMES.nothing}}\n', from)).toThrow(/unknown placeholder/);
    expect(() => resolveLua('return {{ KEY_NAMES }}\n', from)).toThrow(/malformed placeholder/);
  });
});

describe('placeholders in Redis', () => {
  let redis: RedisServerHandle;
  let raw: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw.disconnect();
    await redis.stop();
  });

  it("hold TypeScript's values as Lua literals: strings, numbers, arrays and maps", async () => {
    expect(await raw.eval(resolveLua('return {{KEY_NAMES.recipientBuckets}}'), 0)).toBe(KEY_NAMES.recipientBuckets);
    expect(await raw.eval(resolveLua('return {{RECIPIENT_LEVELS}}'), 0)).toEqual([...RECIPIENT_LEVELS]);
    expect(await raw.eval(resolveLua("return ({{STATUS_CODES}})['pending']"), 0)).toBe('p');
    const refs = await raw.eval(resolveLua("local r = ({{CONVERSATION_REFS}})['slack'] return { r[1], r[2] }"), 0);
    expect(refs).toEqual([...(CONVERSATION_REFS['slack'] as readonly string[])]);
    expect(await raw.eval(resolveLua("return ({{EVENT_TYPE_BY_LETTER}})['a']"), 0)).toBe('interaction.answered');
    expect(await raw.eval(resolveLua("return ({{TERMINAL_EVENT_BY_LETTER}})['c']"), 0)).toBe('cancelled');
  });
});
