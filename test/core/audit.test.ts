import { describe, expect, it } from 'vitest';
import { type AuditEvent, canonicalJson, eventHash, verifyChain } from '../../src/core/audit.js';

/** The worked example of docs/audit.md; its hashes were computed with `printf '%s' ... | sha256sum`. */
const CREATED: AuditEvent = {
  type: 'created',
  seq: 1,
  at: '2026-12-01T15:00:00.000Z',
  by: 'ci-bot',
  detail: { question: 'Deploy v2?', answer_format: 'confirm', mode: 'sync', deadline_at: '2026-12-01T16:00:00.000Z' },
  hash: '8b284f5a137741f080cae51ea006fb4ef91794b39856c9b5dfab0940c1ec81a5',
};
const ANSWERED: AuditEvent = {
  seq: 2,
  type: 'answered',
  at: '2026-12-01T15:01:00.000Z',
  surface: 'inbox',
  by: 'ada',
  detail: { answer: true },
  hash: '85f3b18c150b29206b5c1971a9bbb850729457587b92dbae08ec42a947ba71c8',
};

describe('the audit hash chain', () => {
  it('writes canonical JSON: keys sorted at every level, no whitespace, undefined members left out', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 'é' }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[3,{"y":"é","z":1}]},"b":1}',
    );
    const { hash: _hash, ...content } = CREATED;
    expect(canonicalJson(content)).toBe(
      '{"at":"2026-12-01T15:00:00.000Z","by":"ci-bot","detail":{"answer_format":"confirm",' +
        '"deadline_at":"2026-12-01T16:00:00.000Z","mode":"sync","question":"Deploy v2?"},"seq":1,"type":"created"}',
    );
  });

  it('hashes each event chained to the one before, as the documented example computes with sha256sum', () => {
    expect(eventHash('', CREATED)).toBe(CREATED.hash);
    expect(eventHash(CREATED.hash, ANSWERED)).toBe(ANSWERED.hash);
    expect(verifyChain([CREATED, ANSWERED])).toEqual({ ok: true, count: 2 });
  });

  it('names the first event that was changed, removed or reordered', () => {
    const edited = { ...ANSWERED, by: 'mallory' };
    expect(verifyChain([CREATED, edited])).toMatchObject({ ok: false, seq: 2 });
    expect(verifyChain([{ ...CREATED, detail: { question: 'Delete prod?' } }, ANSWERED])).toMatchObject({
      ok: false,
      seq: 1,
    });
    expect(verifyChain([ANSWERED])).toMatchObject({ ok: false, seq: 1 });
    expect(verifyChain([CREATED, { ...ANSWERED, seq: 3 }])).toMatchObject({ ok: false, seq: 2 });
  });
});
