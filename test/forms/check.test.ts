import { describe, expect, it } from 'vitest';
import { checkField, ruleAttributes, ruleFromAttributes } from '../../forms/check.js';
import type { FieldRule } from '../../forms/fields.js';
import { MESSAGES } from '../../forms/messages.js';

const text = (extra: Partial<FieldRule> = {}): FieldRule => ({
  kind: 'text',
  type: 'string',
  required: false,
  ...extra,
});

describe('checkField', () => {
  it("says a required field is missing, in the sender's words first", () => {
    expect(checkField(text({ required: true }), '')).toBe('This field is required.');
    expect(checkField(text({ required: true }), '   ')).toBe(MESSAGES.required);
    expect(checkField(text({ required: true, errorRequired: 'Enter an address first' }), '')).toBe(
      'Enter an address first',
    );
    expect(checkField(text(), '')).toBeNull();
  });

  it("checks emails with the platform sentence or the sender's", () => {
    expect(checkField(text({ format: 'email' }), 'not-an-email')).toBe('Enter a valid email address');
    expect(checkField(text({ format: 'email', errorInvalid: 'Enter your full address' }), 'a@')).toBe(
      'Enter your full address',
    );
    expect(checkField(text({ format: 'email' }), 'ada@example.com')).toBeNull();
    expect(checkField(text({ format: 'email' }), ' ada@example.com ')).toBeNull();
  });

  it('checks dates, including impossible ones and the bounds', () => {
    const rule = text({ format: 'date', min: '2025-01-01', max: '2025-12-31' });
    expect(checkField(rule, '2025-02-30')).toBe(MESSAGES.date);
    expect(checkField(rule, '2024-12-31')).toBe('Enter a date on or after 2025-01-01.');
    expect(checkField(rule, '2026-01-01')).toBe('Enter a date on or before 2025-12-31.');
    expect(checkField(rule, '2025-06-15')).toBeNull();
    expect(checkField({ ...rule, errorInvalid: 'Pick a day in 2025' }, '2026-01-01')).toBe('Pick a day in 2025');
  });

  it('checks date-times, URLs, numbers and lengths', () => {
    expect(checkField(text({ format: 'date-time' }), '2025-03-31T14:05')).toBeNull();
    expect(checkField(text({ format: 'date-time' }), '2025-03-31T25:05')).toBe(MESSAGES.dateTime);
    expect(checkField(text({ format: 'uri' }), 'example.com')).toBe(MESSAGES.uri);
    expect(checkField(text({ format: 'uri' }), 'https://example.com/a?b=c')).toBeNull();
    const n: FieldRule = { kind: 'number', type: 'integer', required: true, min: '1', max: '9' };
    expect(checkField(n, 'abc')).toBe(MESSAGES.number);
    expect(checkField(n, '2.5')).toBe(MESSAGES.integer);
    expect(checkField(n, '0')).toBe('Enter a number of at least 1.');
    expect(checkField(n, '10')).toBe('Enter a number of at most 9.');
    expect(checkField(n, '3')).toBeNull();
    expect(checkField(text({ minLength: 3 }), 'ab')).toBe('Enter at least 3 characters.');
    expect(checkField(text({ maxLength: 2 }), 'abc')).toBe('Enter at most 2 characters.');
    // Code points, as JSON Schema counts: one emoji is one character.
    expect(checkField(text({ maxLength: 1 }), '😀')).toBeNull();
  });

  it('checks JSON textareas and checkbox groups', () => {
    expect(checkField({ kind: 'json', type: 'array', required: false }, '[1,')).toBe(MESSAGES.json);
    expect(checkField({ kind: 'json', type: 'array', required: false }, '[1]')).toBeNull();
    expect(checkField({ kind: 'checkboxes', type: 'array', required: true }, [])).toBe(MESSAGES.chooseOne);
    expect(checkField({ kind: 'checkboxes', type: 'array', required: true }, ['a'])).toBeNull();
    expect(checkField({ kind: 'checkbox', type: 'boolean', required: true }, false)).toBeNull();
    // A required nested object or const pin holds no value of its own to check.
    expect(checkField({ kind: 'group', type: 'object', required: true }, '')).toBeNull();
    expect(checkField({ kind: 'const', type: 'const', required: true }, '')).toBeNull();
  });

  it('round-trips a rule through data attributes', () => {
    const rule: FieldRule = {
      kind: 'text',
      type: 'string',
      required: true,
      format: 'date',
      min: '2025-01-01',
      max: '2025-12-31',
      minLength: 1,
      maxLength: 10,
      errorRequired: 'r',
      errorInvalid: 'i',
    };
    const attrs = new Map(ruleAttributes(rule));
    expect(ruleFromAttributes((n) => attrs.get(n))).toEqual(rule);
    const optional = new Map(ruleAttributes({ kind: 'number', type: 'number', required: false }));
    expect(optional.has('data-required')).toBe(false);
    expect(ruleFromAttributes((n) => optional.get(n))).toEqual({ kind: 'number', type: 'number', required: false });
  });
});
