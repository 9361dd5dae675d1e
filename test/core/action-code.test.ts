import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeActionCode, encodeActionCode, type ActionPick } from '../../src/core/action-code.js';
import { fuzzParameters, fuzzTimeout } from '../fuzz/fuzz-helpers.js';

/**
 * The one codec for button action codes (src/core/action-code.ts): the codes written out as the buttons carry them,
 * every pick round-tripping, and any string either refused or read as the one code that writes it back.
 */

const ID = 'Qk3v9x_A-bcDeFgH';

describe('action codes, written out', () => {
  const examples: Array<[string, ActionPick]> = [
    [`${ID}:y`, { kind: 'confirm', value: true }],
    [`${ID}:n`, { kind: 'confirm', value: false }],
    [`${ID}:s0`, { kind: 'choice', index: 0 }],
    [`${ID}:s2`, { kind: 'choice', index: 2 }],
    [`${ID}:s999`, { kind: 'choice', index: 999 }],
    [`${ID}:p1`, { kind: 'page', page: 1 }],
    [`${ID}:a`, { kind: 'review', decision: 'approve' }],
    [`${ID}:r`, { kind: 'review', decision: 'reject' }],
    [`${ID}:e`, { kind: 'review', decision: 'edit' }],
    [`${ID}:m`, { kind: 'review', decision: 'respond' }],
  ];
  for (const [code, pick] of examples)
    it(`${code} is ${JSON.stringify(pick)}`, () => {
      expect(encodeActionCode(ID, pick)).toBe(code);
      expect(decodeActionCode(code)).toEqual({ interactionId: ID, pick });
    });

  it('carries an id of a shard (`.<k>`) whole', () => {
    expect(encodeActionCode('AbCdEfGhIjKlMnOp.3', { kind: 'choice', index: 12 })).toBe('AbCdEfGhIjKlMnOp.3:s12');
    expect(decodeActionCode('AbCdEfGhIjKlMnOp.63:y')).toEqual({
      interactionId: 'AbCdEfGhIjKlMnOp.63',
      pick: { kind: 'confirm', value: true },
    });
  });

  it('refuses what is not a code of ours', () => {
    for (const junk of [
      '',
      'junk',
      `${ID}:`,
      `${ID}:x`,
      `${ID}:Y`,
      `${ID}:s`,
      `${ID}:s01`,
      `${ID}:s1000`,
      `${ID}:s-1`,
      `${ID}:p`,
      `${ID}:y `,
      ` ${ID}:y`,
      `${ID}:y:n`,
      `:y`,
      `${'a'.repeat(49)}:y`,
      `${ID}.1234:y`,
      `a b:y`,
      'ag:y:abc',
    ])
      expect(decodeActionCode(junk), junk).toBeNull();
  });

  it('refuses to write a code no tap could read back', () => {
    expect(() => encodeActionCode('has space', { kind: 'confirm', value: true })).toThrow(/not an interaction id/);
    expect(() => encodeActionCode('a'.repeat(49), { kind: 'confirm', value: true })).toThrow(/not an interaction id/);
    expect(() => encodeActionCode(ID, { kind: 'choice', index: 1000 })).toThrow(/0\.\.999, not 1000/);
    expect(() => encodeActionCode(ID, { kind: 'choice', index: -1 })).toThrow(/not -1/);
    expect(() => encodeActionCode(ID, { kind: 'page', page: 1.5 })).toThrow(/not 1.5/);
  });
});

describe('action codes, fuzzed', () => {
  const id = fc
    .tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/), fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }))
    .map(([base, shard]) => (shard === undefined ? base : `${base}.${shard}`));
  const pick: fc.Arbitrary<ActionPick> = fc.oneof(
    fc.boolean().map((value) => ({ kind: 'confirm' as const, value })),
    fc.integer({ min: 0, max: 999 }).map((index) => ({ kind: 'choice' as const, index })),
    fc.integer({ min: 0, max: 999 }).map((page) => ({ kind: 'page' as const, page })),
    fc.constantFrom('approve', 'edit', 'reject', 'respond').map((decision) => ({ kind: 'review' as const, decision })),
  );

  it(
    'every pick on every id round-trips',
    () => {
      fc.assert(
        fc.property(id, pick, (interactionId, p) => {
          expect(decodeActionCode(encodeActionCode(interactionId, p))).toEqual({ interactionId, pick: p });
        }),
        fuzzParameters('action code round trip'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'any string is refused, or read as the one code that writes it back',
    () => {
      const near = fc.oneof(
        fc.string(),
        fc.tuple(id, fc.string({ maxLength: 6 })).map(([i, tail]) => `${i}:${tail}`),
        fc
          .tuple(
            id,
            fc.constantFrom('y', 'n', 's', 'p', 'a', 'r', 'e', 'm'),
            fc.oneof(
              fc.string({ unit: fc.constantFrom(...'0123456789-.x'), maxLength: 5 }),
              // Numbers as a hand-made payload might write them: leading zeros, too many digits.
              fc.stringMatching(/^0?[0-9]{1,4}$/),
            ),
          )
          .map(([i, k, n]) => `${i}:${k}${n}`),
      );
      fc.assert(
        fc.property(near, (code) => {
          const read = decodeActionCode(code);
          if (read !== null) expect(encodeActionCode(read.interactionId, read.pick)).toBe(code);
        }),
        fuzzParameters('action code decode'),
      );
    },
    fuzzTimeout(),
  );
});
