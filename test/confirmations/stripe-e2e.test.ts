import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient, type InteractionRecord } from 'askgate-sdk';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, runCli, startProxy, TOKENS, type FrontProxy } from './helpers.js';

/**
 * Confirmations end to end, with `askgate serve` and `askgate worker` as separate processes on one Redis, the
 * real stripe package against a loopback Stripe, and a proxy whose origin is the public base URL: an agent asks
 * through a Stripe preset and blocks; the signed event unblocks it through the bridge (a worker job, answering in
 * the worker process: the callback door never sees a request from it); without the event, reconcile answers it.
 */

let redis: RedisServerHandle;
let stripe: FakeStripe;
let proxy: FrontProxy;
let serve: GatewayProcess;
let worker: GatewayProcess;
let agent: AskgateClient;
const reference = 'order-42';

beforeAll(async () => {
  [redis, stripe, proxy] = await Promise.all([startRedisServer(), startFakeStripe(), startProxy()]);
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{e2e-confirm}:',
    ASKGATE_TOKENS: TOKENS,
    INTERACTIONS_PUBLIC_BASE_URL: proxy.url,
    INTERACTIONS_CALLBACK_RATE: '10000/60',
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: `whsec_old_rotated_out,${STRIPE_WHSEC}`,
    STRIPE_API_URL: stripe.apiUrl,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    ASKGATE_RECONCILE_INTERVAL_MS: '20',
  };
  [serve, worker] = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env)]);
  proxy.target = serve.url;
  stripe.webhookUrl = `${proxy.url}/webhooks/stripe`;
  agent = new AskgateClient({ url: proxy.url, token: AGENT });
  const put = await api(proxy.url, ADMIN).put('/api/presets/deposit', depositPreset(reference));
  expect(put.status, JSON.stringify(put.json)).toBe(200);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([proxy?.close(), stripe?.close(), redis?.stop()]);
});

/** Asks through the preset as the agent; resolves the created record at once and the answer later. */
async function askDeposit(): Promise<{ record: InteractionRecord; answer: Promise<unknown> }> {
  let created: (record: InteractionRecord) => void = () => undefined;
  const record = new Promise<InteractionRecord>((resolve) => (created = resolve));
  const answer = agent.askPreset('deposit', { timeout: 60 }, { onCreated: (r) => created(r) }).then((a) => a.answer);
  answer.catch(() => undefined); // observed by the test
  return { record: await record, answer };
}

/** How many bridge jobs the `confirm` queue holds in any state (a replay must add none). */
async function bridgeJobs(): Promise<number> {
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('confirm', { connection, prefix: '{e2e-confirm}' });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

function sessionOf(record: InteractionRecord): string {
  const session = [...stripe.sessions.values()].find((s) => s.url === record.confirmation_url);
  if (session === undefined) throw new Error('no Checkout Session behind the confirmation_url');
  return session.id;
}

describe('a Stripe confirmation across serve and worker processes', () => {
  it('the signed event unblocks the agent with {decision: "confirmed", reference}; a replay dispatches nothing', async () => {
    stripe.sessions.clear();
    const { record, answer } = await askDeposit();
    expect(record.confirmation_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\/cs_test_/);
    expect(record).not.toHaveProperty('callback_url');
    expect(record.answer_format).toBe('external');
    expect(record.verifier).toEqual({ name: 'shared_secret' });
    const session = stripe.sessions.get(sessionOf(record));
    expect(session?.success_url).toBe('https://shop.example/thanks');
    expect(session?.client_reference_id).toBe(reference);
    expect(session?.metadata['reference']).toBe(reference);
    // The ticket names its question: `<43-character secret>.<interaction id>`.
    expect(session?.metadata['askgate_callback_url']).toMatch(
      new RegExp(`^${proxy.url}/api/interactions/callback/[A-Za-z0-9_-]{43}\\.${record.id.replace('.', '\\.')}$`),
    );
    expect(session?.sent_line_items).toEqual([
      { price_data: { currency: 'eur', product_data: { name: 'Deposit' }, unit_amount: '5000' }, quantity: '1' },
    ]);

    const event = stripe.complete(session?.id as string);
    expect(await stripe.deliver(event)).toEqual({ status: 200, json: { status: 'accepted' } });
    await expect(answer).resolves.toEqual({ decision: 'confirmed', reference });
    const stored = await api(proxy.url, AGENT).get(`/api/interactions/${record.id}`);
    expect(stored.json['result']).toMatchObject({ answered_by: 'verifier:shared_secret', surface: 'callback' });

    // The bridge answered in the worker, through the callback service: no HTTP round trip to the public door.
    expect(proxy.callbackPosts).toEqual([]);
    expect(await bridgeJobs()).toBe(1);
    expect(await stripe.deliver(event)).toEqual({ status: 200, json: { status: 'already_seen' } });
    expect(await bridgeJobs()).toBe(1); // nothing dispatched
    expect((await api(proxy.url, ADMIN).get('/api/confirmations/failed')).json).toEqual({ items: [] });
  });

  it('with the event never sent, a reconcile run answers it; a second run finds it already answered', async () => {
    stripe.sessions.clear();
    const { record, answer } = await askDeposit();
    stripe.complete(sessionOf(record)); // completed at Stripe; the event is held, never sent
    const first = await runCli(proxy.url, ADMIN, ['confirmations', 'reconcile', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      selected: 1,
      answered: 1,
      already_answered: 0,
      expired: 0,
      rejected: 0,
      failed: [],
    });
    await expect(answer).resolves.toEqual({ decision: 'confirmed', reference });
    const second = await runCli(proxy.url, ADMIN, ['confirmations', 'reconcile', '--lookback-hours', '2', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ selected: 1, answered: 0, already_answered: 1, failed: [] });
  });
});
