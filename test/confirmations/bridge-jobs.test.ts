import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerConfirmation, type BridgeSettings, deliverNow } from '../../src/confirmations/bridge.js';
import type { BridgeJob, ConfirmationHandlers } from '../../src/confirmations/jobs.js';
import type { RetryLadder } from '../../src/confirmations/ladder.js';
import { stepOf } from '../../src/confirmations/wiring.js';
import { createLogger } from '../../src/observability/logger.js';
import { BullConfirmationJobs } from '../../src/queue/confirmation-jobs.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { BRIDGE, freePort, until } from './helpers.js';

/**
 * The bridge on Redis: a store that is away is a transient failure the ladder rides out (the ladder's sleep is
 * injected: it brings Redis back after the second failure, and the third try answers); and a bridge job whose
 * failure stays transient is tried six times on the queue's ladder (BullMQ's backoff calling the ladder for
 * retries 1..5) and then kept as a failed job an operator lists — without its callback URL.
 */

let redis: RedisServerHandle;
let gw: TestGateway;
let connection: Redis;
const prefix = '{bridge-jobs}';

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  const port = await freePort();
  gw = await startTestGateway(
    {
      PORT: String(port),
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `${prefix}:`,
      INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    },
    { workers: false },
  );
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined); // Redis is taken away on purpose below
});
afterAll(async () => {
  connection?.disconnect();
  await gw?.close();
  await redis?.stop();
});

const settings = (): BridgeSettings => ({ publicBaseUrl: gw.gateway.config.publicBaseUrl, secret: BRIDGE });

/** An external question bound to `verifier`, pinned to `reference`; its callback URL. */
async function ask(reference: string, verifier: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const res = await api(gw.url, gw.token).post('/api/interactions', {
    question: `Confirm ${reference}`,
    answer_format: 'external',
    verifier,
    schema: {
      type: 'object',
      properties: { decision: { const: 'confirmed' }, reference: { const: reference } },
      required: ['decision', 'reference'],
    },
    timeout: 120,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json['id'] as string, url: res.json['callback_url'] as string };
}

const statusOf = async (id: string): Promise<unknown> =>
  (await api(gw.url, gw.token).get(`/api/interactions/${id}`)).json['status'];

describe('a store that is away', () => {
  it('is a transient failure: the ladder retries, and the try after Redis is back answers', async () => {
    const { id, url } = await ask('away-1', { name: 'shared_secret' });
    const confirmation = { session: 'cs_away', callbackUrl: url, reference: 'away-1', decision: 'confirmed' };
    await redis.down();
    const sleeps: number[] = [];
    // The sleep between tries is where the ladder waits: Redis comes back during the second one.
    const outcome = await deliverNow(confirmation, settings(), gw.gateway.callbacks, async (ms) => {
      sleeps.push(ms);
      if (sleeps.length === 2) {
        await redis.up();
        await until(
          () =>
            gw.gateway.store.ping().then(
              () => true,
              () => null,
            ),
          'the store to answer again',
        );
      }
    });
    expect(outcome).toEqual({ kind: 'answered' });
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(await statusOf(id)).toBe('answered');
  });

  it('answers nothing while it is away: one try is transient, and names no ticket', async () => {
    const { id, url } = await ask('away-2', { name: 'shared_secret' });
    await redis.down();
    try {
      const outcome = await answerConfirmation(
        { session: 'cs_away_2', callbackUrl: url, reference: 'away-2', decision: 'confirmed' },
        settings(),
        gw.gateway.callbacks,
      );
      expect(outcome.kind).toBe('transient');
      if (outcome.kind === 'transient') expect(outcome.reason).not.toContain(url.split('/').pop() as string);
    } finally {
      await redis.up();
      await until(
        () =>
          gw.gateway.store.ping().then(
            () => true,
            () => null,
          ),
        'the store to answer again',
      );
    }
    expect(await statusOf(id)).toBe('pending');
  });
});

describe('bridge jobs on the queue', () => {
  it('a transient failure is tried 1 + 5 times on the ladder, then kept as a failed job an operator lists', async () => {
    // A question whose verifier cannot run here (its secret variable is unset): the door would answer 500.
    const { id, url } = await ask('jobs-1', { name: 'stripe', secret_env: 'ACME_UNSET_SIGNING_SECRET' });
    const ladderCalls: number[] = [];
    const ladder: RetryLadder = {
      retries: 5,
      delayMs: (retry) => {
        ladderCalls.push(retry);
        return 5; // injected: the count and order of retries matter here, not their length
      },
    };
    const jobs = new BullConfirmationJobs({ connection, prefix, logger: createLogger('silent'), ladder });
    const tries: BridgeJob[] = [];
    const ended: string[] = [];
    const handlers: ConfirmationHandlers = {
      bridge: async (job) => {
        tries.push(job);
        return stepOf(await answerConfirmation(job.confirmation, settings(), gw.gateway.callbacks));
      },
      reconcile: async () => ({}),
      bridgeFailed: async (job) => {
        ended.push(job.session);
      },
    };
    jobs.consume(handlers);
    try {
      await jobs.enqueue({
        provider: 'stripe_checkout',
        eventId: 'evt_jobs_1',
        confirmation: { session: 'cs_jobs_1', callbackUrl: url, reference: 'jobs-1', decision: 'confirmed' },
        receivedAt: new Date().toISOString(),
      });
      const failed = await until(async () => {
        const items = await jobs.listFailed();
        return items.find((j) => j.session === 'cs_jobs_1') ?? null;
      }, 'the failed job');
      expect(failed).toMatchObject({
        provider: 'stripe_checkout',
        event: 'evt_jobs_1',
        reference: 'jobs-1',
        attempts: 6,
        reason: expect.stringContaining('verifier_unavailable'),
      });
      expect(tries).toHaveLength(6);
      expect(ladderCalls).toEqual([1, 2, 3, 4, 5]);
      // Told once, when it ended failed: not on each of the five retries before.
      await until(() => (ended.length > 0 ? true : null), 'the bridgeFailed call');
      expect(ended).toEqual(['cs_jobs_1']);
      expect(JSON.stringify(await jobs.listFailed())).not.toContain(url.split('/').pop() as string);
      expect(await statusOf(id)).toBe('pending');
    } finally {
      await jobs.close();
    }
  });

  it('a verdict fails at once (one try); a delivered job leaves nothing in the failed list', async () => {
    const refusedQ = await ask('jobs-2', { name: 'shared_secret' });
    const goodQ = await ask('jobs-3', { name: 'shared_secret' });
    const jobs = new BullConfirmationJobs({
      connection,
      prefix,
      logger: createLogger('silent'),
      ladder: { retries: 5, delayMs: () => 5 },
    });
    const tries: string[] = [];
    jobs.consume({
      bridge: async (job) => {
        tries.push(job.eventId);
        return stepOf(await answerConfirmation(job.confirmation, settings(), gw.gateway.callbacks));
      },
      reconcile: async () => ({}),
      bridgeFailed: async () => undefined,
    });
    try {
      const receivedAt = new Date().toISOString();
      // The pin refuses this reference: the door's 400, a verdict no retry changes.
      await jobs.enqueue({
        provider: 'stripe_checkout',
        eventId: 'evt_jobs_2',
        confirmation: { session: 'cs_jobs_2', callbackUrl: refusedQ.url, reference: 'other', decision: 'confirmed' },
        receivedAt,
      });
      await jobs.enqueue({
        provider: 'stripe_checkout',
        eventId: 'evt_jobs_3',
        confirmation: { session: 'cs_jobs_3', callbackUrl: goodQ.url, reference: 'jobs-3', decision: 'confirmed' },
        receivedAt,
      });
      const failed = await until(async () => {
        const items = await jobs.listFailed();
        return items.find((j) => j.session === 'cs_jobs_2') ?? null;
      }, 'the refused job');
      expect(failed).toMatchObject({ attempts: 1, reason: expect.stringContaining('invalid_answer') });
      await until(async () => ((await statusOf(goodQ.id)) === 'answered' ? true : null), 'the answer');
      expect((await jobs.listFailed()).map((j) => j.session)).not.toContain('cs_jobs_3');
      expect(tries.filter((t) => t === 'evt_jobs_2')).toHaveLength(1);
      expect(await statusOf(refusedQ.id)).toBe('pending');
    } finally {
      await jobs.close();
    }
  });
});
