import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every comparison of a secret is constant-time (`crypto.timingSafeEqual` on equal-length buffers, or a keyed
 * hash looked up in a map): a `===`, `!==`, `.equals(` or `Buffer.compare` whose operand names a secret, token,
 * signature, digest, HMAC, password or ticket fails this scan. Comparisons with null, undefined, a number, a
 * length or a typeof are not comparisons of a secret's value and pass.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRET_NAME = /(secret|signature|token|digest|hmac|password|ticket)/i;
const HARMLESS = /^(null|undefined|''|""|``|\d+|true|false)$|\.length$|^typeof\b|\.(code|kind|type|name|status)$/;

/** An operand: an identifier path with member and index access (a quoted string stays a literal, not a name). */
const OPERAND = String.raw`[A-Za-z_$][\w$]*(?:\??\.[\w$]+|\[[^\]]*\]|\(\))*|'[^']*'|"[^"]*"|\d+`;
const COMPARISON = new RegExp(String.raw`(typeof\s+)?(${OPERAND})\s*(===|!==)\s*(typeof\s+)?(${OPERAND})`, 'g');
const BUFFER_EQUALS = new RegExp(String.raw`(${OPERAND})\.equals\(|Buffer\.compare\(`, 'g');

const isLiteral = (s: string): boolean => /^['"\d]/.test(s);
const namesSecret = (s: string): boolean => !isLiteral(s) && SECRET_NAME.test(s);

/** The lines of `source` that compare a secret's value in variable time, as `line: text`. */
function variableTimeComparisons(source: string): string[] {
  const found: string[] = [];
  const lines = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/\/\/.*$/, '');
    for (const m of line.matchAll(COMPARISON)) {
      const [left, right] = [m[2] as string, m[5] as string];
      if (m[1] !== undefined || m[4] !== undefined) continue;
      if (HARMLESS.test(left) || HARMLESS.test(right)) continue;
      if (namesSecret(left) || namesSecret(right)) found.push(`${i + 1}: ${raw.trim()}`);
    }
    for (const m of line.matchAll(BUFFER_EQUALS))
      if (m[1] === undefined || namesSecret(m[1])) found.push(`${i + 1}: ${raw.trim()}`);
  }
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('secret comparisons are constant-time', () => {
  it('the scan finds a variable-time comparison of a secret (so it can fail)', () => {
    const bad = [
      'if (given === secret) ok();',
      "if (req.headers['x-signature'] !== expected) refuse();",
      'return hmac.equals(other);',
      'const same = Buffer.compare(a, b) === 0;',
      'if (token.value === presented) {}',
    ];
    for (const line of bad) expect(variableTimeComparisons(line), line).toHaveLength(1);
    const fine = [
      'if (secret === null) return;',
      "if (typeof token !== 'string') return;",
      'if (signature.length !== expected.length) return false;',
      "if (err.code === 'verifier_refused') throw err;",
      'if (binding.kind === kind) go();',
      '// if (given === secret) is what we never write',
    ];
    for (const line of fine) expect(variableTimeComparisons(line), line).toEqual([]);
  });

  it('src/, channels/ and web/ compare no secret with ===, !==, .equals or Buffer.compare', () => {
    const offenders = ['src', 'channels', 'web', 'forms'].flatMap((dir) =>
      sources(join(ROOT, dir)).flatMap((file) =>
        variableTimeComparisons(readFileSync(file, 'utf8')).map((hit) => `${relative(ROOT, file)}:${hit}`),
      ),
    );
    expect(offenders).toEqual([]);
  });
});
