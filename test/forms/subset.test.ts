import { describe, expect, it } from 'vitest';
import { checkChannelFormSubset } from '../../forms/subset.js';

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('checkChannelFormSubset', () => {
  it('accepts every shape the contract lists', () => {
    const schema = form(
      {
        name: {
          type: 'string',
          title: 'Name',
          minLength: 2,
          maxLength: 80,
          errorMessages: { required: 'Your name first' },
        },
        email: { type: 'string', format: 'email', errorMessages: { invalid: 'Enter your full address' } },
        start: { type: 'string', format: 'date', formatMinimum: '2025-01-01', formatMaximum: '2025-12-31' },
        at: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
        seats: { type: 'integer', minimum: 1, maximum: 9 },
        budget: { type: 'number', minimum: 0 },
        agree: { type: 'boolean' },
        size: { type: 'string', enum: ['S', 'M', 'L'] },
        colour: { enum: ['red', 'blue'] },
        extras: { type: 'array', items: { type: 'string', enum: ['wifi', 'parking'] } },
        reason: { type: 'string', visibleWhen: { field: 'agree', equals: false } },
      },
      { required: ['name', 'email'], additionalProperties: false, title: 'Booking' },
    );
    expect(checkChannelFormSubset(schema)).toEqual({ ok: true });
  });

  it.each([
    [
      'a nested object',
      { address: { type: 'object', properties: { city: { type: 'string' } } } },
      'address',
      /outside/,
    ],
    ['an array of objects', { people: { type: 'array', items: { type: 'object' } } }, 'people', /items/],
    ['an array without enum items', { tags: { type: 'array', items: { type: 'string' } } }, 'tags', /enum/],
    ['a oneOf', { pick: { oneOf: [{ type: 'string' }, { type: 'number' }] } }, 'pick', /type/],
    ['a pattern', { code: { type: 'string', pattern: '^[A-Z]+$' } }, 'code', /"pattern"/],
    ['multipleOf', { n: { type: 'number', multipleOf: 5 } }, 'n', /"multipleOf"/],
    ['an unknown format', { ip: { type: 'string', format: 'ipv4' } }, 'ip', /ipv4/],
    ['a number enum', { level: { type: 'number', enum: [1, 2] } }, 'level', /enum/],
    ['a nullable type list', { note: { type: ['string', 'null'] } }, 'note', /single "type"/],
    ['formatMinimum without a date format', { s: { type: 'string', formatMinimum: '2025-01-01' } }, 's', /date/],
    [
      'a formatMinimum that is not a date',
      { d: { type: 'string', format: 'date', formatMinimum: 'soon' } },
      'd',
      /date string/,
    ],
    [
      'visibleWhen to a missing field',
      { a: { type: 'string', visibleWhen: { field: 'ghost', equals: 'x' } } },
      'a',
      /ghost/,
    ],
    [
      'visibleWhen without equals',
      { a: { type: 'boolean' }, b: { type: 'string', visibleWhen: { field: 'a' } } },
      'b',
      /visibleWhen/,
    ],
    ['visibleWhen to itself', { a: { type: 'string', visibleWhen: { field: 'a', equals: 'x' } } }, 'a', /itself/],
    ['unknown errorMessages words', { a: { type: 'string', errorMessages: { tooLong: 'no' } } }, 'a', /tooLong/],
    ['minimum on a string', { a: { type: 'string', minimum: 3 } }, 'a', /"minimum"/],
  ])('refuses %s, naming the property', (_what, properties, property, reason) => {
    const result = checkChannelFormSubset(form(properties));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.property).toBe(property);
    expect(result.reason).toMatch(reason);
  });

  it('refuses a schema that is not an object form', () => {
    expect(checkChannelFormSubset({ type: 'string' })).toMatchObject({ ok: false, property: '(root)' });
    expect(checkChannelFormSubset({ type: 'object', properties: {} })).toMatchObject({ ok: false, property: '(root)' });
    expect(checkChannelFormSubset(form({ a: { type: 'string' } }, { oneOf: [] }))).toMatchObject({
      ok: false,
      property: '(root)',
    });
  });

  it('refuses a required name that is not a property', () => {
    expect(checkChannelFormSubset(form({ a: { type: 'string' } }, { required: ['b'] }))).toMatchObject({
      ok: false,
      property: 'b',
    });
  });
});
