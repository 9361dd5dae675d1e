import { describe, expect, it } from 'vitest';
import type { FieldRule } from '../../forms/fields.js';
import { generalSentence, refusalSentence } from '../../forms/refusal.js';

/** The sentences both the inbox and the callback page show for a server refusal (forms/refusal.ts). */
describe('a refusal in words', () => {
  const text: FieldRule = { kind: 'text', type: 'string', required: true };

  it("puts the page's own check first, then the sender's words, then the server's reason as a sentence", () => {
    expect(refusalSentence({ ...text, format: 'email' }, 'ada@', 'must match format "email"')).toBe(
      'Enter a valid email address',
    );
    expect(
      refusalSentence({ ...text, errorInvalid: 'Use the code.' }, 'paris', 'must match pattern "^[A-Z]{3}$"'),
    ).toBe('Use the code.');
    expect(refusalSentence(text, '3', 'must be multiple of 2')).toBe('Must be multiple of 2.');
    expect(refusalSentence({ ...text, required: false }, '', 'is required')).toBe('This field is required.');
    expect(refusalSentence({ ...text, required: false, errorRequired: 'Say it.' }, '', 'is required')).toBe('Say it.');
  });

  it('says a refusal no shown field holds with its path, and one about the whole answer by its reason', () => {
    expect(generalSentence({ field: 'address.zip', reason: 'is required' })).toBe('Address.zip is required.');
    expect(generalSentence({ field: 'answer', reason: 'must NOT have fewer than 3 properties' })).toBe(
      'Must NOT have fewer than 3 properties.',
    );
    expect(generalSentence({ field: '', reason: 'must be object.' })).toBe('Must be object.');
  });
});
