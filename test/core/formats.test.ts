import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AskgateError } from '../../src/core/errors.js';
import {
  FAST_CLAIM_FORMATS,
  answerFacts,
  checkAnswer,
  claimWorthwhile,
  formatOf,
  renderHints,
} from '../../src/core/formats/index.js';
import { ANSWER_FORMATS, type AnswerFormat } from '../../src/core/types.js';

/** Each answer format is one module behind one spec; these hold the spec's parts to each other and to the store. */

function refusal(fn: () => unknown): { field: string | null; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AskgateError) return { ...err.refusal, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

const q = (answer_format: AnswerFormat, extra: { choices?: string[]; schema?: Record<string, unknown> } = {}) => ({
  answer_format,
  choices: extra.choices ?? null,
  schema: extra.schema ?? null,
});

describe('the answer format specs', () => {
  it('cover every format of the vocabulary, each under its own name', () => {
    for (const name of ANSWER_FORMATS) expect(formatOf(name).name).toBe(name);
  });

  it('give the render hint a channel presents the controls by', () => {
    expect(ANSWER_FORMATS.map((f) => [f, renderHints({ answer_format: f }).controls])).toEqual([
      ['text', 'text'],
      ['select', 'menu'],
      ['confirm', 'buttons'],
      ['form', 'form'],
      ['external', 'external'],
      ['review', 'review'],
    ]);
  });

  it('claim in one step exactly the formats the Redis claim script checks', () => {
    // The script names each format it checks (`format == '<name>'`); a fast format it does not know would be sent
    // to the claim for nothing, and a format it checks that no spec encodes would never be checked there.
    const script = readFileSync(join(import.meta.dirname, '../../src/store/redis/scripts/resolve-3.lua'), 'utf8');
    const inScript = [...script.matchAll(/format == '(\w+)'/g)].map((m) => m[1]);
    expect(inScript.length).toBeGreaterThan(0);
    expect([...FAST_CLAIM_FORMATS].sort()).toEqual([...new Set(inScript)].sort());
  });

  it("encode each fast format's own fact, and nothing for the others", () => {
    expect(formatOf('text').fastClaim?.('ok')).toEqual({ text: true });
    expect(formatOf('text').fastClaim?.('')).toEqual({ text: false });
    expect(formatOf('select').fastClaim?.('b')).toEqual({ choice: 'b' });
    expect(formatOf('select').fastClaim?.(true)).toEqual({ choice: null });
    expect(formatOf('confirm').fastClaim?.(false)).toEqual({ boolean: true });
    expect(formatOf('confirm').fastClaim?.('yes')).toEqual({ boolean: false });
    expect(formatOf('form').fastClaim).toBeNull();
    expect(formatOf('external').fastClaim).toBeNull();
  });

  it('choose the path before the round trip: only an answer some fast format could take goes to the claim', () => {
    expect(claimWorthwhile(answerFacts('ok') as never)).toBe(true);
    expect(claimWorthwhile(answerFacts(true) as never)).toBe(true);
    expect(claimWorthwhile(answerFacts('') as never)).toBe(true); // a select could have an empty choice
    expect(claimWorthwhile(answerFacts({ a: 1 }) as never)).toBe(false);
    expect(claimWorthwhile(answerFacts(42) as never)).toBe(false);
    expect(claimWorthwhile(answerFacts(null) as never)).toBe(false);
    expect(answerFacts('\ud800')).toBeNull();
  });

  it('refuse as data: the field and the bare reason, beside the sentence of the HTTP body', () => {
    expect(refusal(() => checkAnswer(q('confirm'), 'yes'))).toEqual({
      code: 'invalid_answer',
      field: 'answer',
      reason: 'must be boolean',
      message: 'answer does not match schema at answer: must be boolean',
    });
    const form = q('form', {
      schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
    });
    expect(refusal(() => checkAnswer(form, {}))).toMatchObject({ field: 'email', reason: 'is required' });
    expect(refusal(() => checkAnswer(q('text'), undefined)).field).toBe('answer');
  });

  it('check each format against its rule', () => {
    expect(checkAnswer(q('text'), 'fine')).toBe('fine');
    expect(refusal(() => checkAnswer(q('text'), 'x'.repeat(16_385))).field).toBe('answer');
    expect(checkAnswer(q('select', { choices: ['a', 'b'] }), 'b')).toBe('b');
    expect(refusal(() => checkAnswer(q('select', { choices: ['a', 'b'] }), 'c')).reason).toMatch(/must be one of/);
    expect(checkAnswer(q('confirm'), true)).toBe(true);
    expect(checkAnswer(q('external'), { anything: [1] })).toEqual({ anything: [1] });
    const pinned = q('external', {
      schema: { type: 'object', properties: { paid: { const: true } }, required: ['paid'] },
    });
    expect(refusal(() => checkAnswer(pinned, { paid: false })).field).toBe('paid');
  });

  it("read the callback page's post by the format's own page schema", () => {
    expect(formatOf('text').fromPage(q('text'), [['answer', 'hello']])).toBe('hello');
    expect(refusal(() => formatOf('text').fromPage(q('text'), [])).field).toBe('answer');
    expect(formatOf('confirm').fromPage(q('confirm'), [['answer', 'false']])).toBe(false);
    expect(formatOf('confirm').fromPage(q('confirm'), [['answer', 'maybe']])).toBe('maybe');
    expect(formatOf('select').fromPage(q('select', { choices: ['x'] }), [['answer', 'x']])).toBe('x');
    expect(formatOf('external').fromPage(q('external'), [['confirmed', 'true']])).toEqual({ confirmed: true });
    expect(refusal(() => formatOf('external').fromPage(q('external'), [])).reason).toMatch(/confirmed=true/);
    const form = q('form', { schema: { type: 'object', properties: { n: { type: 'integer' } } } });
    expect(formatOf('form').fromPage(form, [['n', '3']])).toEqual({ n: 3 });
  });

  it('wrap the simple formats in one answer field, and take an external body whole', () => {
    expect(ANSWER_FORMATS.filter((f) => formatOf(f).wrapped)).toEqual(['text', 'select', 'confirm']);
    expect(ANSWER_FORMATS.filter((f) => formatOf(f).wholeBody)).toEqual(['external']);
    expect(formatOf('select').pageSchema(q('select', { choices: ['a'] }))).toMatchObject({
      required: ['answer'],
      properties: { answer: { enum: ['a'] } },
    });
    expect(formatOf('form').pageSchema(q('form'))).toEqual({ type: 'object', properties: {} });
  });

  it("parse the ask body's format-bound fields, refusing by name a field the format does not take", () => {
    const fields = (format: AnswerFormat, body: { choices?: unknown; schema?: unknown }) =>
      formatOf(format).askFields({ choices: body.choices, schema: body.schema });
    expect(fields('select', { choices: ['a', 'b'] })).toEqual({ choices: ['a', 'b'], schema: null });
    expect(refusal(() => fields('select', {})).field).toBe('choices');
    expect(refusal(() => fields('select', { choices: ['a', 'a'] })).field).toBe('choices[1]');
    expect(refusal(() => fields('text', { choices: ['a'] })).field).toBe('choices');
    expect(refusal(() => fields('confirm', { schema: { type: 'object' } })).reason).toBe(
      'schema applies to form, external and review asks only.',
    );
    expect(refusal(() => fields('form', {})).reason).toMatch(/schema is required for a form/);
    expect(refusal(() => fields('form', { schema: { type: 'string' } })).reason).toMatch(/"type": "object"/);
    expect(fields('external', {})).toEqual({ choices: null, schema: null });
    expect(fields('external', { schema: { type: 'object' } }).schema).toEqual({ type: 'object' });
  });
});
