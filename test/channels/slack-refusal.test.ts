import { describe, expect, it } from 'vitest';
import { refusalOnModal } from '../../channels/slack/modal.js';
import { invalidAnswer } from '../../src/core/errors.js';

/** A core refusal reaches the Slack modal as data (field and reason) and lands on its field's block. */
describe('a core refusal on the Slack modal', () => {
  const schema = {
    type: 'object',
    properties: {
      email: { type: 'string', title: 'Email', errorMessages: { invalid: 'Enter your full address' } },
      tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] } },
      note: { type: 'string', title: 'Note' },
    },
  };
  const outcome = (path: string, reason: string) => {
    const err = invalidAnswer(path, reason);
    return { field: err.field, reason: err.reason ?? '', message: err.message };
  };

  it("shows the sender's words on the named field's block", () => {
    expect(refusalOnModal(schema, outcome('email', 'must match format "email"'), 'f:email')).toEqual({
      block: 'f:email',
      words: 'Enter your full address',
    });
  });

  it('shows the bare reason as a sentence where the sender gave no words, an item on its list', () => {
    expect(refusalOnModal(schema, outcome('note', 'must NOT have more than 10 characters'), null)).toEqual({
      block: 'f:note',
      words: 'Must NOT have more than 10 characters.',
    });
    expect(refusalOnModal(schema, outcome('tags[1]', 'must be one of "a", "b"'), null)?.block).toBe('f:tags');
  });

  it("puts a refusal of no field of ours on the fallback block with the core's sentence, or nowhere", () => {
    expect(refusalOnModal(schema, outcome('', 'must be object'), 'f:email')).toEqual({
      block: 'f:email',
      words: 'answer does not match schema at answer: must be object',
    });
    expect(refusalOnModal(schema, outcome('', 'must be object'), null)).toBeNull();
  });
});
