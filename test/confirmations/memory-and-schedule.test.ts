import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/confirmations/reconcile.js';
import type { CompletedConfirmation, ConfirmationProvider } from '../../src/confirmations/providers/types.js';
import type { Logger } from '../../src/observability/logger.js';
import { MemoryOperatorSignals } from '../../src/store/memory-operator-signals.js';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, freePort, TOKENS } from './helpers.js';

/**
 * The in-memory store (`npm start` without Redis): presets work, the ingress refuses with 503 after verifying the
 * signature. On Redis, however many workers start with ASKGATE_RECONCILE_EVERY, there is one reconcile scheduler.
 * A reconcile run whose every answer is expired warns that the callback route may be unserved.
 */

let stripe: FakeStripe;
let redis: RedisServerHandle;
beforeAll(async () => {
  [stripe, redis] = await Promise.all([startFakeStripe(), startRedisServer()]);
});
afterAll(async () => {
  await Promise.all([stripe?.close(), redis?.stop()]);
});

const env = (port: number): Record<string, string> => ({
  PORT: String(port),
  ASKGATE_TOKENS: TOKENS,
  INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  INTERACTIONS_CALLBACK_RATE: '10000/60',
  STRIPE_SECRET_KEY: STRIPE_KEY,
  STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
  STRIPE_API_URL: stripe.apiUrl,
  TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
});

describe('on the in-memory store', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(env(await freePort()));
    stripe.webhookUrl = `${gw.url}/webhooks/stripe`;
  });
  afterAll(() => gw?.close());

  it('presets work: written with admin, asked through, their Checkout Session opened', async () => {
    expect((await api(gw.url, ADMIN).put('/api/presets/deposit', depositPreset('mem-1'))).json).toEqual({
      name: 'deposit',
      version: 1,
    });
    const asked = await api(gw.url, AGENT).post('/api/presets/deposit/ask', { timeout: 30 });
    expect(asked.status).toBe(201);
    expect(asked.json['confirmation_url']).toMatch(/\/pay\/cs_test_/);
    expect(asked.json).not.toHaveProperty('callback_url');
  });

  it('the ingress checks the signature first (401), then refuses a signed event with 503 naming REDIS_URL', async () => {
    const event = stripe.sign({ id: 'evt_mem', object: 'event', type: 'checkout.session.completed', data: {} });
    expect((await stripe.deliver(event, 't=1,v1=00')).status).toBe(401);
    const res = await stripe.deliver(event);
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: 'not_configured' });
    expect(res.json['message']).toContain('set REDIS_URL');
    const failed = await api(gw.url, ADMIN).get('/api/confirmations/failed');
    expect(failed.status).toBe(503);
  });
});

describe('without STRIPE_SECRET_KEY', () => {
  it('a confirmation preset ask is 503 naming the variable, and no question is created', async () => {
    const { STRIPE_SECRET_KEY: _, ...rest } = env(await freePort());
    const gw = await startTestGateway(rest);
    try {
      expect((await api(gw.url, ADMIN).put('/api/presets/deposit', depositPreset('no-key'))).status).toBe(200);
      const res = await api(gw.url, AGENT).post('/api/presets/deposit/ask', { timeout: 30 });
      expect(res.status).toBe(503);
      expect(res.json).toEqual({
        error: 'not_configured',
        message: 'STRIPE_SECRET_KEY is not set on this gateway; an operator must set it.',
      });
      expect((await api(gw.url, AGENT).get('/api/interactions')).json['items']).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});

describe('on Redis', () => {
  it('two workers with ASKGATE_RECONCILE_EVERY install one reconcile scheduler with a fixed id, one run at a time', async () => {
    const shared = { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: '{sched}:', ASKGATE_RECONCILE_EVERY: '900' };
    const a = await startTestGateway({ ...env(await freePort()), ...shared });
    const b = await startTestGateway({ ...env(await freePort()), ...shared });
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('reconcile', { connection, prefix: '{sched}' });
    try {
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((s) => [s.key, s.every])).toEqual([['reconcile', 900_000]]);
      // A run that outlasts its interval holds the next one back, on every worker: the queue runs one job at a time.
      expect(await queue.getGlobalConcurrency()).toBe(1);
    } finally {
      await queue.close();
      connection.disconnect();
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('a reconcile run', () => {
  it('keeps the five outcomes disjoint and warns when every selected confirmation is expired', async () => {
    const gw = await startTestGateway(env(await freePort()));
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      error: () => undefined,
      warn: (_o: unknown, message: string) => warnings.push(message),
    } as unknown as Logger;
    const dead = (n: number): CompletedConfirmation => ({
      session: `cs_dead_${n}`,
      callbackUrl: `${gw.url}/api/interactions/callback/${'x'.repeat(43)}${n}`,
      reference: 'r',
      decision: 'confirmed',
    });
    const provider = { name: 'fake', listCompleted: async () => [dead(1), dead(2)] } as unknown as ConfirmationProvider;
    const signals = new MemoryOperatorSignals();
    const raised: unknown[] = [];
    signals.listen((signal) => raised.push(signal));
    try {
      const summary = await reconcile({
        provider,
        settings: { publicBaseUrl: gw.url, secret: BRIDGE },
        callbacks: gw.gateway.callbacks,
        lookbackHours: 26,
        intervalMs: 0,
        logger,
        signals,
      });
      expect(summary).toEqual({ selected: 2, answered: 0, already_answered: 0, expired: 2, rejected: 0, failed: [] });
      expect(warnings).toEqual([
        'every selected confirmation came back expired: this process may read another store than the one that asked ' +
          '(check REDIS_URL and ASKGATE_REDIS_PREFIX against the processes that serve asks)',
      ]);
      // Beside the log line, the signal an operator alerts on (the stream's event, the /metrics counter).
      expect(raised).toEqual([
        {
          type: 'confirmation.reconcile_unserved',
          provider: 'fake',
          data: { provider: 'fake', lookback_hours: 26, selected: 2, expired: 2, at: expect.any(String) },
        },
      ]);
      expect(await signals.totals()).toEqual([{ type: 'confirmation.reconcile_unserved', provider: 'fake', count: 1 }]);
    } finally {
      await gw.close();
    }
  });
});
