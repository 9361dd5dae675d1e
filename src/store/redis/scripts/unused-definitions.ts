/**
 * Drops the helper definitions a script never uses. Every script splices in whole fragments (fragments.ts and its
 * siblings) and Redis runs a script's whole body on every call, so each `local function` it holds is a closure built
 * per call, and each constant table a table built per call, whether the script calls it or not: the resolve script
 * spent about 3 µs of its ~28 µs per answer building helpers it never called. Only top-level definitions are
 * candidates, written as the fragments write them, starting at column 0:
 *
 * - `local function NAME(...)` through the first line that is exactly `end` (or the same line, for a one-liner);
 * - `local NAME = <one line>` whose right side calls nothing but the pure `string.*`, `math.*`, `tonumber`, `tostring`
 *   and `type` (constants: numbers, strings, tables); `local b = bucketAdd(...)` stays whether or not b is read.
 *
 * A candidate is kept when its name occurs, as a word, in anything kept — the script's other code or a kept
 * definition — comments aside; otherwise it is dropped with the comment lines right above it. Everything else is
 * kept as written, in order, so a kept script means exactly what the spliced one meant: only definitions nothing
 * reads are gone. A name defined twice (two fragments both splicing a helper) is kept or dropped as one.
 */

interface Chunk {
  text: string;
  /** The name a candidate defines; null for code that is always kept. */
  defines: string | null;
  /** The text scanned for references: the code without its comments. */
  code: string;
}

const FUNCTION_START = /^local function ([A-Za-z_][A-Za-z0-9_]*)\s*\(/;
const CONSTANT = /^local ([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)$/;

export function withoutUnusedDefinitions(lua: string): string {
  const chunks = split(lua);
  const kept = new Set<Chunk>(chunks.filter((c) => c.defines === null));
  const byName = new Map<string, Chunk[]>();
  for (const chunk of chunks) {
    if (chunk.defines === null) continue;
    byName.set(chunk.defines, [...(byName.get(chunk.defines) ?? []), chunk]);
  }
  // Names reached from kept code; a reached name keeps every definition of it.
  const pending = [...kept];
  while (pending.length > 0) {
    const chunk = pending.pop() as Chunk;
    for (const [name, definitions] of byName) {
      if (definitions.every((d) => kept.has(d))) continue;
      if (!mentions(chunk.code, name, chunk.defines)) continue;
      for (const definition of definitions) {
        if (kept.has(definition)) continue;
        kept.add(definition);
        pending.push(definition);
      }
    }
  }
  return chunks
    .filter((c) => kept.has(c))
    .map((c) => c.text)
    .join('');
}

/** Whether `code` uses `name` as a word; a definition's own name at its head does not count. */
function mentions(code: string, name: string, self: string | null): boolean {
  const word = new RegExp(`(^|[^A-Za-z0-9_.])${name}(?![A-Za-z0-9_])`, 'g');
  let count = 0;
  for (const _ of code.matchAll(word)) count++;
  return count > (self === name ? 1 : 0);
}

function split(lua: string): Chunk[] {
  const lines = lua.split(/(?<=\n)/);
  const chunks: Chunk[] = [];
  let plain = '';
  // Comment lines seen since the last code line: they go with whatever follows them.
  let comments = '';
  const keepPlain = (): void => {
    if (plain !== '') chunks.push({ text: plain, defines: null, code: withoutComments(plain) });
    plain = '';
  };
  const candidate = (name: string, body: string): void => {
    keepPlain();
    chunks.push({ text: comments + body, defines: name, code: withoutComments(body) });
    comments = '';
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const bare = line.replace(/\r?\n$/, '');
    if (bare.startsWith('--[[')) {
      // A block comment (a script's header): kept whole, whatever its lines look like.
      let end = i;
      while (end < lines.length && !(lines[end] as string).includes(']]')) end++;
      plain += comments + lines.slice(i, end + 1).join('');
      comments = '';
      i = end;
      continue;
    }
    const fn = FUNCTION_START.exec(bare);
    if (fn !== null) {
      let end = i;
      if (!/\bend\s*$/.test(bare)) {
        end = i + 1;
        while (end < lines.length && (lines[end] as string).replace(/\r?\n$/, '') !== 'end') end++;
        if (end === lines.length) throw new Error(`unterminated local function ${fn[1]} in a Lua script`);
      }
      candidate(fn[1] as string, lines.slice(i, end + 1).join(''));
      i = end;
      continue;
    }
    const constant = CONSTANT.exec(bare);
    if (constant !== null && callsOnlyPure(constant[2] as string)) {
      candidate(constant[1] as string, line);
      continue;
    }
    if (bare.startsWith('--')) {
      comments += line;
      continue;
    }
    plain += comments + line;
    comments = '';
  }
  plain += comments;
  keepPlain();
  return chunks;
}

/** Whether an expression calls only side-effect-free library functions (or nothing): dropping it changes nothing. */
function callsOnlyPure(expression: string): boolean {
  const calls = expression.match(/[A-Za-z_][A-Za-z0-9_.:]*\s*\(/g) ?? [];
  return calls.every((call) => PURE_CALL.test(call));
}

const PURE_CALL = /^(?:(?:string|math)\.[a-z]+|tonumber|tostring|type)\s*\($/;

/** The code without `--[[ ... ]]` blocks and `--` line comments (no script writes `--` inside a string). */
function withoutComments(text: string): string {
  return text.replace(/--\[\[[\s\S]*?\]\]/g, ' ').replace(/--[^\n]*/g, ' ');
}
