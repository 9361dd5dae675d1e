import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_KEY, startFakeStripe, type FakeStripe } from '../fakes/stripe-server.js';

/**
 * The fake Stripe refuses what Stripe documents it refuses on a Checkout Session create (metadata:
 * https://docs.stripe.com/api/metadata; line_items: https://docs.stripe.com/api/checkout/sessions/create), and fails
 * as Stripe can when a test says so (a 500 api_error, a reset connection). Checked through the stripe package.
 */

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(async () => fake?.close());

const client = (retries = 0): Stripe => {
  const url = new URL(fake.apiUrl);
  return new Stripe(STRIPE_KEY, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    maxNetworkRetries: retries,
    telemetry: false,
  });
};

const ITEM = { quantity: 1, price_data: { currency: 'eur', unit_amount: 1200, product_data: { name: 'Seat' } } };
const create = (params: Partial<Stripe.Checkout.SessionCreateParams>, retries = 0) =>
  client(retries).checkout.sessions.create({
    mode: 'payment',
    success_url: 'https://example.com/done',
    line_items: [ITEM],
    ...params,
  });
const refusal = async (p: Promise<unknown>): Promise<{ type?: string; statusCode?: number; param?: string }> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof Stripe.errors.StripeError)) throw new Error(`expected a StripeError, got ${String(err)}`);
  return err as never;
};

describe('the fake Stripe: metadata limits', () => {
  it('takes 50 keys of 40 characters with values of 500; refuses a 51st key, a 41-character key, a 501-character value', async () => {
    const keys = (n: number, keyLength = 10) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i}`.padStart(keyLength, 'k'), 'v']));
    expect((await create({ metadata: keys(50, 40) })).id).toMatch(/^cs_test_/);
    expect(await refusal(create({ metadata: keys(51) }))).toMatchObject({ statusCode: 400, param: 'metadata' });
    expect(await refusal(create({ metadata: keys(1, 41) }))).toMatchObject({ statusCode: 400, param: 'metadata' });
    expect((await create({ metadata: { note: 'x'.repeat(500) } })).id).toMatch(/^cs_test_/);
    expect(await refusal(create({ metadata: { note: 'x'.repeat(501) } }))).toMatchObject({ param: 'metadata' });
  });
});

describe('the fake Stripe: line_items', () => {
  it('takes 100 items and refuses 101, or none', async () => {
    expect((await create({ line_items: Array.from({ length: 100 }, () => ITEM) })).id).toMatch(/^cs_test_/);
    const tooMany = await refusal(create({ line_items: Array.from({ length: 101 }, () => ITEM) }));
    expect(tooMany).toMatchObject({ statusCode: 400, param: 'line_items' });
    expect(await refusal(create({ line_items: [] }))).toMatchObject({ param: 'line_items' });
  });

  it('wants a positive integer quantity, exactly one of price and price_data, a currency, a name, an amount', async () => {
    expect(await refusal(create({ line_items: [{ ...ITEM, quantity: 0 }] }))).toMatchObject({
      param: 'line_items[0][quantity]',
    });
    expect(await refusal(create({ line_items: [{ quantity: 1 }] }))).toMatchObject({ param: 'line_items[0]' });
    const data = (change: Record<string, unknown>) => [{ quantity: 1, price_data: { ...ITEM.price_data, ...change } }];
    expect(await refusal(create({ line_items: data({ currency: 'euro' }) as never }))).toMatchObject({
      param: 'line_items[0][price_data][currency]',
    });
    expect(await refusal(create({ line_items: data({ product_data: {} }) as never }))).toMatchObject({
      param: 'line_items[0][price_data][product_data][name]',
    });
    expect(await refusal(create({ line_items: data({ unit_amount: -1 }) as never }))).toMatchObject({
      param: 'line_items[0][price_data][unit_amount]',
    });
    expect((await create({ line_items: [{ price: 'price_123', quantity: 2 }] })).id).toMatch(/^cs_test_/);
  });
});

describe('the fake Stripe: outages', () => {
  it('answers a 500 api_error when told to, once per call; the client sees a StripeAPIError', async () => {
    fake.outage('500');
    expect(await refusal(create({}))).toMatchObject({ type: 'StripeAPIError', statusCode: 500 });
    expect((await create({})).id).toMatch(/^cs_test_/);
  });

  it('resets the connection when told to: a StripeConnectionError, and a retrying client gets through', async () => {
    const before = fake.outages;
    // stripe-node tries a closed connection once more even with retries off: two resets fail the call.
    fake.outage('reset', 2);
    expect(await refusal(create({}))).toMatchObject({ type: 'StripeConnectionError' });
    fake.outage('reset', 2);
    // With two retries (as askgate's client is set) the third try goes through.
    expect((await create({}, 2)).id).toMatch(/^cs_test_/);
    expect(fake.outages - before).toBe(4);
  });
});
