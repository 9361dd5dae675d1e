import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * What every door's fuzz test shares: the run's seed and size, the generators of hostile input, and the property a
 * door's answer must hold.
 *
 * The seed is printed before each property runs; `FUZZ_SEED=<n>` replays it (fast-check also prints the seed and
 * the shrunk counterexample of a failure). `FUZZ_RUNS=<n>` sets the cases per property (default 150, which keeps
 * `npm test` at a few seconds per door).
 */

export function fuzzParameters(door: string): fc.Parameters<unknown> {
  const seed =
    process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : Date.now() ^ (Math.random() * 2 ** 31);
  const numRuns = Number(process.env['FUZZ_RUNS'] ?? 150);
  // Printed so a failing run replays: FUZZ_SEED=<seed> npx vitest run test/fuzz
  console.log(`fuzz ${door}: seed ${seed}, ${numRuns} cases (replay with FUZZ_SEED=${seed})`);
  return { seed, numRuns, endOnFailure: true };
}

/**
 * The time a property of `FUZZ_RUNS` cases may take: 400 ms a case, at least 60 s. A bound that turns a hang into a
 * failure, not a speed check: a case is a few requests (about 20 ms alone), and on two cores with a second suite
 * running beside this one a property of 150 cases has taken past 30 s.
 */
export function fuzzTimeout(): number {
  return Math.max(60_000, Number(process.env['FUZZ_RUNS'] ?? 150) * 400);
}

/** Numbers that break naive code: huge, tiny, negative zero, fractions, the edges of safe integers and of a Date. */
export const edgyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    0.5,
    1e-300,
    7.8e307,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    2 ** 53,
    2 ** 53 + 2,
    8.64e12,
    8.64e15,
    1e21,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Strings that break naive code: empty, long, control characters, lone surrogates, look-alikes of real values. */
export const edgyString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '__proto__',
    'constructor',
    'x'.repeat(5000),
    '2030-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '0000-01-01T00:00:00Z',
    'http://127.0.0.1/',
    'https://example.test/hook',
    'true',
    'null',
    '{}',
  ),
);

/** Any JSON value, weighted towards the edgy scalars above. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    edgyNumber,
    edgyString,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(edgyString, tie('value'), { maxKeys: 5 }),
  ),
})).value;

type Json = unknown;

/** One change to a JSON value at a path: replace the value there, delete it, or wrap it in an array. */
export interface Mutation {
  path: number[];
  kind: 'replace' | 'delete' | 'wrap' | 'add';
  key: string;
  value: Json;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.array(fc.nat(), { maxLength: 4 }),
  kind: fc.constantFrom('replace', 'delete', 'wrap', 'add'),
  key: edgyString,
  value: anyJson,
});

const isContainer = (v: Json): v is Record<string, Json> | Json[] => v !== null && typeof v === 'object';

/**
 * Applies the mutations, in order, to a deep copy of `base`. Each walks down its path (each number picks a child,
 * modulo the number of children) while the child is an object or array, then changes one member of where it
 * stopped: replaces, deletes or wraps it, or adds a member under `key`.
 */
export function mutate(base: Json, mutations: Mutation[]): Json {
  let root = structuredClone(base);
  for (const m of mutations) {
    if (!isContainer(root)) {
      root = m.value;
      continue;
    }
    let node: Record<string, Json> | Json[] = root;
    let pick = 0;
    for (const step of m.path) {
      pick = step;
      const keys = Object.keys(node);
      const child: Json = (node as Record<string, Json>)[keys[step % Math.max(keys.length, 1)] ?? ''];
      if (!isContainer(child)) break;
      node = child;
    }
    const members = node as Record<string, Json>;
    const keys = Object.keys(members);
    const key = keys[pick % Math.max(keys.length, 1)];
    if (m.kind === 'add' || key === undefined) {
      if (Array.isArray(node)) node.push(m.value);
      else members[m.key] = m.value;
    } else if (m.kind === 'delete') {
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete members[key];
    } else members[key] = m.kind === 'wrap' ? [members[key]] : m.value;
  }
  return root;
}

/** Errors whose body names no field by design: who you are, what you may do, where a thing is, how often. */
const FIELDLESS = new Set([
  'unauthorized',
  'forbidden',
  'callback_only',
  'not_found',
  'gone',
  'conflict',
  'already_answered',
  'rate_limited',
  'payload_too_large',
  'verifier_refused',
]);

/**
 * The property every door holds: never a 5xx (but the designed `verifier_unavailable` 500), and a 4xx body is an
 * error with a message that names its field, unless its code is one of the documented field-less ones.
 */
export function expectWellRefused(status: number, body: unknown, what: string): void {
  if (status === 500 && (body as Record<string, unknown> | null)?.['error'] === 'verifier_unavailable') return;
  expect(status, `${what} answered ${status}: ${JSON.stringify(body)}`).toBeLessThan(500);
  if (status < 400) return;
  const error = body as Record<string, unknown>;
  expect(typeof error['error'], `${what}: a ${status} without an error code: ${JSON.stringify(body)}`).toBe('string');
  expect(typeof error['message'], `${what}: a ${status} without a message`).toBe('string');
  if (!FIELDLESS.has(error['error'] as string))
    expect(typeof error['field'], `${what}: ${JSON.stringify(body)} names no field`).toBe('string');
}

/** A raw HTTP call that never throws on a bad body: the status, the parsed JSON (or the text), the headers. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = text;
  }
  return { status: res.status, body, text };
}
