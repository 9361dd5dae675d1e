import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { AskgateSdkError, type Continuation, startWorker } from 'askgate-sdk';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The SDK's continuation worker against a gateway on a real redis-server, over HTTP only: a throw is retried as the
 * next attempt and the run resumes with the later return value; close waits for a running handler and its report;
 * options an older release took are refused with the fix.
 */

const PREFIX = `{sw${Date.now()}}:`;
const TOKEN = 'sdk-worker-test-alice-0123456789';
let redis: RedisServerHandle;
let gateway: Gateway;
let url: string;
let alice: Api;

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await createGateway(
    loadConfig({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: PREFIX,
      LOG_LEVEL: 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'] } }),
    }),
    { workers: true },
  );
  url = await gateway.listen();
  alice = api(url, TOKEN);
});

afterAll(async () => {
  await gateway?.close();
  await redis?.stop();
});

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function readyRun(runId: string, handler: string): Promise<void> {
  const parked = await alice.post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: new Date(Date.now() + 3_600_000).toISOString(),
    run: { run_id: runId, resume: { handler } },
  });
  expect(parked.status).toBe(201);
  await alice.post(`/api/interactions/${parked.json['id'] as string}/answer`, { answer: true });
}

describe('startWorker', () => {
  it('retries a handler that throws as the next attempt, and completes with its later return value', async () => {
    const attempts: number[] = [];
    const errors: string[] = [];
    const worker = await startWorker({
      url,
      token: TOKEN,
      backoffMs: 20,
      onError: (e) => errors.push(e.message),
      handlers: {
        flaky: (c) => {
          attempts.push(c.attempt);
          if (c.attempt < 3) throw new Error(`attempt ${c.attempt} failed`);
          return { text: 'third time' };
        },
      },
    });
    try {
      await readyRun('run-sw-flaky', 'flaky');
      await until(async () => (await alice.get('/api/runs/run-sw-flaky')).json['status'] === 'resumed', 'the run');
      expect(attempts).toEqual([1, 2, 3]);
      expect((await alice.get('/api/runs/run-sw-flaky')).json['resume_attempts']).toBe(3);
      expect(errors).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it('close waits for a running handler and its report', async () => {
    let release: () => void = () => undefined;
    const started: Continuation[] = [];
    const worker = await startWorker({
      url,
      token: TOKEN,
      handlers: {
        slow: async (c) => {
          started.push(c);
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return 'done';
        },
      },
    });
    await readyRun('run-sw-slow', 'slow');
    await until(() => started.length === 1, 'the handler to start');
    const order: string[] = [];
    const closing = worker.close().then(() => order.push('closed'));
    // Let close run as far as it can while the handler still runs: its claims end, its own requests come back.
    await alice.get('/api/runs/run-sw-slow');
    await alice.get('/api/runs/run-sw-slow');
    order.push('released');
    release();
    await closing;
    expect(order).toEqual(['released', 'closed']);
    // Reported before close resolved: the completion is in the stream (recorded by the askgate worker soon after).
    await until(async () => (await alice.get('/api/runs/run-sw-slow')).json['status'] === 'resumed', 'the run');
  });

  it('claims the next continuation with each complete: one claim request for a run of continuations', async () => {
    const sent: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const path = new URL(String(input)).pathname.replace(/continuations\/[^/]+\//, 'continuations/{id}/');
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      sent.push(`${path}${body['claim'] === undefined ? '' : ' +claim'}`);
      return fetch(input, init);
    };
    const seen: string[] = [];
    const worker = await startWorker({
      url,
      token: TOKEN,
      concurrency: 1,
      fetch: counting,
      handlers: { chain: (c) => void seen.push(c.run_id) },
    });
    try {
      for (const n of [1, 2, 3, 4]) {
        await readyRun(`run-sw-chain-${n}`, 'chain');
        await until(() => seen.length === n, `continuation ${n}`);
      }
      await until(
        async () => (await alice.get('/api/runs/run-sw-chain-4')).json['status'] === 'resumed',
        'the last completion',
      );
    } finally {
      await worker.close();
    }
    expect(seen).toEqual(['run-sw-chain-1', 'run-sw-chain-2', 'run-sw-chain-3', 'run-sw-chain-4']);
    // The first continuation came through a claim; each complete waited for the next (the fourth's was cut by close).
    expect(sent.filter((s) => s === '/api/continuations/claim')).toHaveLength(1);
    expect(sent.filter((s) => s === '/api/continuations/{id}/complete +claim')).toHaveLength(4);
    for (const n of [1, 2, 3]) expect((await alice.get(`/api/runs/run-sw-chain-${n}`)).json['status']).toBe('resumed');
  });

  it('closing while a complete waits for the next continuation keeps the completion, and resolves at once', async () => {
    const worker = await startWorker({ url, token: TOKEN, concurrency: 1, handlers: { once: () => 'ok' } });
    await readyRun('run-sw-once', 'once');
    await until(async () => (await alice.get('/api/runs/run-sw-once')).json['status'] === 'resumed', 'the run');
    // The complete that recorded it is now waiting (up to 30 s) for a next continuation that never comes.
    const order: string[] = [];
    const closing = worker.close().then(() => order.push('closed'));
    const timeout = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('waited 10 s')), 10_000));
    await Promise.race([closing, timeout]);
    expect(order).toEqual(['closed']);
    expect((await alice.get('/api/runs/run-sw-once')).json['status']).toBe('resumed');
  });

  it('refuses options it cannot work with, saying what to pass', async () => {
    await expect(
      startWorker({ redisUrl: 'redis://127.0.0.1:6379', handlers: { a: () => null } } as never),
    ).rejects.toThrow(/pass url \(the gateway\) and token/);
    await expect(startWorker({ url, token: TOKEN, handlers: {} })).rejects.toThrow(AskgateSdkError);
    await expect(startWorker({ url, token: TOKEN, handlers: { 'no spaces': () => null } })).rejects.toThrow(
      /handler name "no spaces"/,
    );
    await expect(startWorker({ url, token: TOKEN, lockDurationMs: 500, handlers: { a: () => null } })).rejects.toThrow(
      /lockDurationMs must be a whole number of ms from 1000 to 600000/,
    );
    await expect(startWorker({ url: 'ftp://x', token: TOKEN, handlers: { a: () => null } })).rejects.toThrow(
      /must be http:\/\/ or https:\/\//,
    );
  });

  it('tells onError when its token may not claim, and keeps trying', async () => {
    const errors: Error[] = [];
    const worker = await startWorker({
      url,
      token: 'not-a-token-of-this-gateway-0123',
      onError: (e) => errors.push(e),
      handlers: { a: () => null },
    });
    try {
      await until(() => errors.length >= 2, 'two refused claims');
      expect(errors[0]?.message).not.toContain('not-a-token-of-this-gateway-0123');
      expect((errors[0] as { status?: number }).status).toBe(401);
    } finally {
      await worker.close();
    }
  });
});
