import { describe, expect, it } from 'vitest';
import { checkField } from '../../forms/check.js';
import { MESSAGES } from '../../forms/messages.js';
import { firstViolation } from '../../src/core/schema-validator.js';

/** One email rule on both sides: the form page's field check and the server's schema validator, over one table. */

const TABLE: Array<[address: string, valid: boolean]> = [
  ['ada@example.com', true],
  ['ada.lovelace+askgate@mail.example.co.uk', true],
  ["o'brien@example.ie", true],
  ['ADA@EXAMPLE.COM', true],
  ['ada@example', false],
  ['ada@localhost', false],
  ['ada', false],
  ['@example.com', false],
  ['ada@', false],
  ['ada@@example.com', false],
  ['.ada@example.com', false],
  ['ada.@example.com', false],
  ['ada..lovelace@example.com', false],
  ['ada@-example.com', false],
  ['ada@example-.com', false],
  ['ada lovelace@example.com', false],
  ['ada@exa mple.com', false],
];

const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' } } };

describe('format: email', () => {
  it.each(TABLE)('%s is %s on the page and on the server alike', (address, valid) => {
    const page = checkField({ kind: 'text', type: 'string', required: true, format: 'email' }, address);
    const server = firstViolation(schema, { email: address });
    expect(page === null, `page said: ${page}`).toBe(valid);
    expect(server === null, `server said: ${JSON.stringify(server)}`).toBe(valid);
    if (!valid) expect(page).toBe(MESSAGES.email);
  });
});
