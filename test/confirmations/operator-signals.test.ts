import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, freePort, TOKENS, until } from './helpers.js';

/**
 * What an operator must hear of beside the log line: a confirmation bridge job that ends failed, and a reconcile
 * run whose every selected confirmation came back expired. Each is an event on the stream (to admin tokens) and a
 * counter on `/metrics`, on every process of the deployment: here the worker that fails the job and runs the
 * reconcile is one gateway, and the stream and `/metrics` read are another's, on the same Redis.
 */

let stripe: FakeStripe;
let redis: RedisServerHandle;
let worker: TestGateway;
let server: TestGateway;
beforeAll(async () => {
  [stripe, redis] = await Promise.all([startFakeStripe(), startRedisServer()]);
  const port = await freePort();
  const env = {
    ASKGATE_TOKENS: TOKENS,
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{signals}:',
    INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    STRIPE_API_URL: stripe.apiUrl,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    ASKGATE_RECONCILE_INTERVAL_MS: '0',
  };
  worker = await startTestGateway({ ...env, PORT: String(port) }, { workers: true });
  server = await startTestGateway({ ...env, PORT: String(await freePort()) }, { workers: false });
  stripe.webhookUrl = `${worker.url}/webhooks/stripe`;
});
afterAll(async () => {
  await Promise.all([worker?.close(), server?.close()]);
  await Promise.all([stripe?.close(), redis?.stop()]);
});

interface Heard {
  type: string;
  data: Record<string, unknown>;
}

const SIGNALS = ['confirmation.bridge_failed', 'confirmation.reconcile_unserved', 'interaction.cancelled'];

/** An EventSource on `server`'s stream with `token`, recording the signal events (and cancellations, as a control). */
function openStream(token: string): { heard: Heard[]; opened: Promise<void>; close(): void } {
  const heard: Heard[] = [];
  const source = new EventSource(`${server.url}/api/interactions/stream`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` },
      }),
  });
  for (const type of SIGNALS)
    source.addEventListener(type, (e) =>
      heard.push({ type, data: JSON.parse((e as MessageEvent<string>).data) as Record<string, unknown> }),
    );
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = () => reject(new Error('the stream failed'));
  });
  return { heard, opened, close: () => source.close() };
}

/** The value of `name{provider="stripe_checkout"}` on `server`'s `/metrics` (0 when the line is absent). */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{provider="stripe_checkout"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

describe('operator signals', () => {
  it('a bridge job that ends failed, then a reconcile run that finds it expired: stream events and counters', async () => {
    const admin = openStream(ADMIN);
    // A token with read but not admin hears the questions' events and none of the operator's.
    const agent = openStream(AGENT);
    await Promise.all([admin.opened, agent.opened]);
    try {
      expect(await metric('askgate_confirmation_bridge_failed_total')).toBe(0);
      expect(await metric('askgate_confirmation_reconcile_unserved_total')).toBe(0);

      expect((await api(worker.url, ADMIN).put('/api/presets/deposit', depositPreset('sig-1'))).status).toBe(200);
      const asked = await api(worker.url, AGENT).post('/api/presets/deposit/ask', { timeout: 120 });
      expect(asked.status).toBe(201);
      const session = (asked.json['confirmation'] as { id: string }).id;
      // The question goes away before the party pays: the bridge's answer meets the door's 404, a verdict.
      expect((await api(worker.url, AGENT).delete(`/api/interactions/${asked.json['id']}`)).status).toBe(200);
      expect((await stripe.deliver(stripe.complete(session))).status).toBe(200);

      const failed = await until(
        () => admin.heard.find((h) => h.type === 'confirmation.bridge_failed') ?? null,
        'the bridge_failed event',
      );
      expect(failed.data).toMatchObject({
        provider: 'stripe_checkout',
        session,
        reference: 'sig-1',
        attempts: 1,
        reason: expect.stringContaining('not_found'),
      });
      expect(typeof failed.data['job']).toBe('string');
      expect(JSON.stringify(failed.data)).not.toContain('/api/interactions/callback/');
      expect(await metric('askgate_confirmation_bridge_failed_total')).toBe(1);

      const summary = await api(worker.url, ADMIN).post('/api/confirmations/reconcile', { lookback_hours: 1 });
      expect(summary.json).toMatchObject({ selected: 1, expired: 1, answered: 0 });
      const unserved = await until(
        () => admin.heard.find((h) => h.type === 'confirmation.reconcile_unserved') ?? null,
        'the reconcile_unserved event',
      );
      expect(unserved.data).toMatchObject({ provider: 'stripe_checkout', lookback_hours: 1, selected: 1, expired: 1 });
      expect(await metric('askgate_confirmation_reconcile_unserved_total')).toBe(1);
      // The worker's own /metrics counts the deployment's signals too.
      const workerMetrics = await (await fetch(`${worker.url}/metrics`)).text();
      expect(workerMetrics).toContain('askgate_confirmation_bridge_failed_total{provider="stripe_checkout"} 1');

      // The agent's stream heard the cancellation (so it was listening all along), and no operator signal.
      await until(() => agent.heard.find((h) => h.type === 'interaction.cancelled') ?? null, 'the cancellation');
      expect(agent.heard.map((h) => h.type)).toEqual(['interaction.cancelled']);
    } finally {
      admin.close();
      agent.close();
    }
  });

  it('a reconcile run that answers something is no signal', async () => {
    const before = await metric('askgate_confirmation_reconcile_unserved_total');
    expect((await api(worker.url, ADMIN).put('/api/presets/deposit', depositPreset('sig-2'))).status).toBe(200);
    const asked = await api(worker.url, AGENT).post('/api/presets/deposit/ask', { timeout: 120 });
    const session = (asked.json['confirmation'] as { id: string }).id;
    stripe.complete(session); // completed at Stripe, its event never delivered: reconcile finds it
    const summary = await api(worker.url, ADMIN).post('/api/confirmations/reconcile', { lookback_hours: 1 });
    expect(summary.json).toMatchObject({ selected: 2, answered: 1, expired: 1 });
    expect(await metric('askgate_confirmation_reconcile_unserved_total')).toBe(before);
  });
});
