import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/core/formats/index.js';
import { AskgateError } from '../../src/core/errors.js';

function refusal(fn: () => unknown): { field: string | undefined; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AskgateError) return { field: err.field, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('checkAnswer', () => {
  const nested = {
    type: 'object',
    properties: {
      ship: { type: 'boolean' },
      address: {
        type: 'object',
        visibleWhen: { field: 'ship', equals: true },
        properties: {
          city: { type: 'string' },
          floor: { type: 'integer', visibleWhen: { field: 'address.city', equals: 'Berlin' } },
        },
        required: ['city', 'floor'],
      },
    },
    required: ['ship', 'address'],
  };

  it('does not require a nested group hidden by visibleWhen, and drops its values', () => {
    expect(
      checkAnswer({ answer_format: 'form', choices: null, schema: nested }, { ship: false, address: { city: 'x' } }),
    ).toEqual({ ship: false });
  });

  it('requires a nested field only while its chain of conditions holds', () => {
    expect(
      refusal(() => checkAnswer({ answer_format: 'form', choices: null, schema: nested }, { ship: true, address: {} }))
        .field,
    ).toBe('address.city');
    expect(
      checkAnswer({ answer_format: 'form', choices: null, schema: nested }, { ship: true, address: { city: 'Paris' } }),
    ).toEqual({ ship: true, address: { city: 'Paris' } });
    expect(
      refusal(() =>
        checkAnswer(
          { answer_format: 'form', choices: null, schema: nested },
          { ship: true, address: { city: 'Berlin' } },
        ),
      ).field,
    ).toBe('address.floor');
  });

  it('names array items by index and reports the reason', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', maxLength: 3 } } } };
    const r = refusal(() => checkAnswer({ answer_format: 'form', choices: null, schema }, { tags: ['ok', 'toolong'] }));
    expect(r.field).toBe('tags[1]');
    expect(r.message).toBe('answer does not match schema at tags[1]: must NOT have more than 3 characters');
  });

  it('checks formats such as email with ajv-formats', () => {
    const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' } } };
    expect(refusal(() => checkAnswer({ answer_format: 'form', choices: null, schema }, { email: 'nope' })).field).toBe(
      'email',
    );
  });

  it('takes any payload for an external question without a schema, and checks a const pin when there is one', () => {
    expect(checkAnswer({ answer_format: 'external', choices: null, schema: null }, { anything: [1] })).toEqual({
      anything: [1],
    });
    const pinned = {
      type: 'object',
      properties: { reference: { const: 'INV-7' }, decision: { const: 'confirmed' } },
      required: ['reference', 'decision'],
    };
    expect(
      refusal(() =>
        checkAnswer(
          { answer_format: 'external', choices: null, schema: pinned },
          { reference: 'INV-8', decision: 'confirmed' },
        ),
      ).field,
    ).toBe('reference');
  });
});
