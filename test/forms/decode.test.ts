import { describe, expect, it } from 'vitest';
import { decodeFormFields } from '../../forms/decode.js';
import { visibleFields } from '../../forms/fields.js';

const schema = {
  type: 'object',
  required: ['name', 'seats'],
  properties: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    seats: { type: 'integer' },
    price: { type: 'number' },
    agree: { type: 'boolean' },
    size: { type: 'string', enum: ['S', 'M', 'L'] },
    level: { type: 'integer', enum: [1, 2, 3] },
    extras: { type: 'array', items: { type: 'string', enum: ['wifi', 'parking', 'breakfast'] } },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
    },
    people: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
    at: { type: 'string', format: 'date-time' },
  },
};

describe('decodeFormFields', () => {
  it('types every control', () => {
    const value = decodeFormFields(schema, [
      ['name', 'Ada'],
      ['email', ' ada@example.com '],
      ['seats', '3'],
      ['price', '12.5'],
      ['agree', 'true'],
      ['size', 'M'],
      ['level', '2'],
      ['extras', 'wifi'],
      ['extras', 'breakfast'],
      ['address.city', 'Paris'],
      ['people', '[{"n":"x"}]'],
      ['at', '2025-03-31T14:05'],
      ['__tz_offset', '+02:00'],
      ['unknown', 'ignored'],
    ]);
    expect(value).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      seats: 3,
      price: 12.5,
      agree: true,
      size: 'M',
      level: 2,
      extras: ['wifi', 'breakfast'],
      address: { city: 'Paris' },
      people: [{ n: 'x' }],
      at: '2025-03-31T14:05:00+02:00',
    });
  });

  it('reads an unchecked checkbox as false and drops empty fields', () => {
    expect(
      decodeFormFields(schema, [
        ['name', ''],
        ['seats', ''],
        ['address.city', ''],
        ['at', ''],
      ]),
    ).toEqual({ agree: false });
  });

  it('keeps values that cannot be typed as strings, for the server to refuse by name', () => {
    expect(
      decodeFormFields(schema, [
        ['seats', 'many'],
        ['people', '[{'],
      ]),
    ).toMatchObject({ seats: 'many', people: '[{' });
  });

  it('takes a wall-clock date-time as UTC without an offset', () => {
    expect(decodeFormFields(schema, [['at', '2025-03-31T14:05:30']])).toMatchObject({ at: '2025-03-31T14:05:30Z' });
  });

  it('drops fields hidden by visibleWhen, in chains and inside groups', () => {
    const s = {
      type: 'object',
      properties: {
        contact: { type: 'boolean' },
        how: { type: 'string', enum: ['email', 'phone'], visibleWhen: { field: 'contact', equals: true } },
        email: { type: 'string', visibleWhen: { field: 'how', equals: 'email' } },
        shipping: {
          type: 'object',
          properties: {
            method: { type: 'string', enum: ['post', 'pickup'] },
            street: { type: 'string', visibleWhen: { field: 'method', equals: 'post' } },
          },
        },
      },
    };
    const entries: Array<[string, string]> = [
      ['how', 'email'],
      ['email', 'a@b.co'],
      ['shipping.method', 'pickup'],
      ['shipping.street', '1 Main St'],
    ];
    expect(decodeFormFields(s, entries)).toEqual({ contact: false, shipping: { method: 'pickup' } });
    expect(decodeFormFields(s, [['contact', 'true'], ...entries])).toEqual({
      contact: true,
      how: 'email',
      email: 'a@b.co',
      shipping: { method: 'pickup' },
    });
    expect(visibleFields(s, { contact: true, how: 'phone' })).toEqual(
      new Set(['contact', 'how', 'shipping', 'shipping.method']),
    );
  });

  it('keeps a required nested object and array even when empty, and a const pin', () => {
    const s = {
      type: 'object',
      required: ['a', 'tags'],
      properties: {
        a: { type: 'object', properties: { b: { type: 'string' } } },
        tags: { type: 'array', items: { enum: ['x', 'y'] } },
        decision: { const: 'confirmed' },
      },
    };
    expect(decodeFormFields(s, [])).toEqual({ a: {}, tags: [], decision: 'confirmed' });
  });
});
