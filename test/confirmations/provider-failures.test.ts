import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { until } from '../park/helpers.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, TOKENS } from './helpers.js';

/**
 * What docs/confirmations.md promises when something fails on the way, tested at the doors with the real stripe
 * package against the loopback Stripe and a real Redis:
 * - "line_items go to Stripe as written; Stripe refuses bad ones, and the ask then fails with 502 provider_failed
 *   and the question is cancelled";
 * - "Stripe is down for reconcile — the run fails with 502 provider_failed; nothing was answered";
 * - the ingress's step 4: "If the job cannot be written, the seen-set claim is dropped and the door answers 5xx, so
 *   Stripe's retry is accepted". The job write is made to fail by Redis itself: the confirm queue's meta key is
 *   briefly a string, so BullMQ's add script meets WRONGTYPE (nothing is mocked).
 */

const TAG = `{confirm-fail-${process.pid}}`;
let redis: RedisServerHandle;
let stripe: FakeStripe;
let gw: TestGateway;
let raw: Redis;

beforeAll(async () => {
  [redis, stripe] = await Promise.all([startRedisServer(), startFakeStripe()]);
  gw = await startTestGateway({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: `${TAG}:`,
    ASKGATE_TOKENS: TOKENS,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    STRIPE_API_URL: stripe.apiUrl,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
  });
  stripe.webhookUrl = `${gw.url}/webhooks/stripe`;
  raw = new Redis(redis.url);
  const put = await api(gw.url, ADMIN).put('/api/presets/deposit', depositPreset('order-7'));
  expect(put.status, JSON.stringify(put.json)).toBe(200);
}, 60_000);

afterAll(async () => {
  raw?.disconnect();
  await gw?.close();
  await stripe?.close();
  await redis?.stop();
});

const agent = () => api(gw.url, AGENT);
const pendingIds = async (): Promise<string[]> =>
  ((await agent().get('/api/interactions')).json['items'] as Array<{ id: string }>).map((r) => r.id);

describe('Stripe refusing the Checkout Session', () => {
  it('fails the ask with 502 provider_failed and cancels the question it had created', async () => {
    // A quantity of 0: askgate passes line_items as written, and Stripe refuses it (a positive integer is required).
    const preset = depositPreset('order-0');
    const items = (preset['confirmation'] as { line_items: Array<Record<string, unknown>> }).line_items;
    (items[0] as Record<string, unknown>)['quantity'] = 0;
    expect((await api(gw.url, ADMIN).put('/api/presets/zero-deposit', preset)).status).toBe(200);
    const before = stripe.sessions.size;

    const res = await agent().post('/api/presets/zero-deposit/ask', { timeout: 60 });
    expect(res.status).toBe(502);
    expect(res.json['error']).toBe('provider_failed');
    expect(res.json['message']).toBe(
      'stripe_checkout could not open the confirmation (Quantity is required and must be a positive integer.); ' +
        'the question was cancelled.',
    );
    expect(stripe.sessions.size).toBe(before);
    // The question it had created is withdrawn: nothing is left pending for a party who has no way to pay.
    expect(await pendingIds()).toEqual([]);
  });
});

describe('the ingress when the bridge job cannot be written', () => {
  it('answers 5xx and gives the seen claim back, so the retry of the same event is accepted and answers the ask', async () => {
    const asked = await agent().post('/api/presets/deposit/ask', { timeout: 60 });
    expect(asked.status, JSON.stringify(asked.json)).toBe(201);
    const id = asked.json['id'] as string;
    const session = [...stripe.sessions.values()].find((s) => s.url === asked.json['confirmation_url']);
    expect(session).toBeDefined();
    const event = stripe.complete(session?.id as string);

    const meta = `${TAG}:confirm:meta`;
    const kept = await raw.hgetall(meta);
    await raw.del(meta);
    await raw.set(meta, 'not a hash');
    const refused = await stripe.deliver(event);
    await raw.del(meta);
    if (Object.keys(kept).length > 0) await raw.hset(meta, kept);
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect((await agent().get(`/api/interactions/${id}`)).json['status']).toBe('pending');

    // Stripe's retry: the same signed event, accepted now (not already_seen), and the bridge answers the question.
    expect(await stripe.deliver(event)).toEqual({ status: 200, json: { status: 'accepted' } });
    await until(
      async () => (await agent().get(`/api/interactions/${id}`)).json['status'] === 'answered',
      'the bridge to answer the question',
    );
    expect((await agent().get(`/api/interactions/${id}`)).json['result']).toMatchObject({
      answer: { decision: 'confirmed', reference: 'order-7' },
    });
    // A third delivery is a replay of a kept event.
    expect(await stripe.deliver(event)).toEqual({ status: 200, json: { status: 'already_seen' } });
  });
});

describe('Stripe down for reconcile', () => {
  it('fails the run with 502 provider_failed and answers nothing', async () => {
    const asked = await agent().post('/api/presets/deposit/ask', { timeout: 60 });
    expect(asked.status).toBe(201);
    const id = asked.json['id'] as string;
    const session = [...stripe.sessions.values()].find((s) => s.url === asked.json['confirmation_url']);
    stripe.complete(session?.id as string); // paid at Stripe; the event is never sent
    // Every try fails: stripe-node's own first call and its two retries (askgate sets maxNetworkRetries: 2).
    const outagesBefore = stripe.outages;
    stripe.outage('500', 3);
    const run = await api(gw.url, ADMIN).post('/api/confirmations/reconcile', {});
    expect(run.status).toBe(502);
    expect(run.json['error']).toBe('provider_failed');
    expect(run.json['message']).toMatch(/^stripe_checkout could not list completed confirmations: /);
    expect(stripe.outages - outagesBefore).toBe(3);
    expect((await agent().get(`/api/interactions/${id}`)).json['status']).toBe('pending');
    // Stripe back: the next run answers it.
    const again = await api(gw.url, ADMIN).post('/api/confirmations/reconcile', {});
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json).toMatchObject({ answered: 1 });
    expect((await agent().get(`/api/interactions/${id}`)).json['status']).toBe('answered');
  });
});
