import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The continuation doors (docs/doors.md, "Continuations") against a gateway on a real redis-server: a claim takes
 * the next due continuation of the caller's own identity under a lease; complete records it once; a lapsed lease is
 * offered again and its late complete refused; fail retries with backoff; extend lengthens the lease; a claim whose
 * asker went away takes nothing.
 */

const PREFIX = `{cd${Date.now()}}:`;
const ALICE = 'continuation-doors-alice-0123456789';
const BOB = 'continuation-doors-bob-0123456789';
const READER = 'continuation-doors-reader-0123456789';
let redis: RedisServerHandle;
let raw: Redis;
let gateway: Gateway;
let url: string;
let alice: Api;
let bob: Api;

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url);
  const config = loadConfig({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    ASKGATE_TOKENS: JSON.stringify({
      [ALICE]: { identity: 'alice', scopes: ['read', 'write', 'answer'] },
      [BOB]: { identity: 'bob', scopes: ['read', 'write', 'answer'] },
      [READER]: { identity: 'reader', scopes: ['read'] },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '50',
  });
  gateway = await createGateway(config, { workers: true });
  url = await gateway.listen();
  alice = api(url, ALICE);
  bob = api(url, BOB);
});

afterAll(async () => {
  await gateway?.close();
  raw?.disconnect();
  await redis?.stop();
});

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Parks a run of `as` on one confirm ask resumed by `handler`, and answers it yes: its continuation falls due. */
async function readyRun(as: Api, runId: string, handler: string): Promise<void> {
  const parked = await as.post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: new Date(Date.now() + 3_600_000).toISOString(),
    run: { run_id: runId, resume: { handler }, state: { step: 7 } },
  });
  expect(parked.status).toBe(201);
  const answered = await as.post(`/api/interactions/${parked.json['id'] as string}/answer`, { answer: true });
  expect(answered.json['status']).toBe('answered');
}

const claim = (as: Api, handler: string, extra: Record<string, unknown> = {}) =>
  as.post('/api/continuations/claim', { handlers: [handler], wait: 5, ...extra });
const runStatus = async (runId: string): Promise<unknown> => (await alice.get(`/api/runs/${runId}`)).json['status'];

describe('continuation doors', () => {
  it('a claim takes the due continuation under a lease; complete resumes the run once; a second complete is refused', async () => {
    await readyRun(alice, 'run-cd-1', 'ship');
    const claimed = await claim(alice, 'ship');
    expect(claimed.status).toBe(200);
    expect(claimed.json).toMatchObject({ handler: 'ship', attempt: 1 });
    expect(claimed.json['continuation']).toMatchObject({
      type: 'run.resumed',
      run_id: 'run-cd-1',
      identity: 'alice',
      state: { step: 7 },
      ask_result: { answer: true },
      attempt: 1,
    });
    const resumeId = claimed.json['resume_id'] as string;
    expect((claimed.json['continuation'] as Record<string, unknown>)['resume_id']).toBe(resumeId);
    const leaseId = claimed.json['lease_id'] as string;
    const done = await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: leaseId, output: 'ok' });
    expect(done).toMatchObject({ status: 200, json: { status: 'completed' } });
    await until(async () => (await runStatus('run-cd-1')) === 'resumed', 'the completion to be recorded');
    const again = await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: leaseId, output: 'ok' });
    expect(again.status).toBe(409);
    expect(again.json['error']).toBe('already_completed');
    expect((await alice.get('/api/runs/run-cd-1')).json['resume_attempts']).toBe(1);
  });

  it("a park's continuation with no chat thread completes its run in the report's own step, past the stream", async () => {
    const stream = `${PREFIX}completions`;
    // The stream exists from the worker's start (its consumer group is made with MKSTREAM).
    const lastId = async (): Promise<string> => {
      const info = (await raw.xinfo('STREAM', stream)) as unknown[];
      return String(info[info.indexOf('last-generated-id') + 1]);
    };
    await readyRun(alice, 'run-cd-in-place', 'in-place');
    const claimed = await claim(alice, 'in-place');
    const before = await lastId();
    const done = await alice.post(`/api/continuations/${claimed.json['resume_id'] as string}/complete`, {
      lease_id: claimed.json['lease_id'],
      output: 'ok',
    });
    expect(done).toMatchObject({ status: 200, json: { status: 'completed' } });
    // Recorded by the time the door answered (no worker's read in between), and nothing was appended to the stream.
    expect(await runStatus('run-cd-in-place')).toBe('resumed');
    expect((await alice.get('/api/runs/run-cd-in-place')).json['resume_attempts']).toBe(1);
    expect(await lastId()).toBe(before);
  });

  it("a token sees only its own identity's continuations", async () => {
    await readyRun(alice, 'run-cd-own', 'own');
    expect((await claim(bob, 'own', { wait: 1 })).status).toBe(204);
    const claimed = await claim(alice, 'own');
    expect(claimed.json['continuation']).toMatchObject({ run_id: 'run-cd-own' });
    const resumeId = claimed.json['resume_id'] as string;
    const leaseId = claimed.json['lease_id'] as string;
    // Bob holding Alice's lease id still reaches nothing of hers.
    const stolen = await bob.post(`/api/continuations/${resumeId}/complete`, { lease_id: leaseId });
    expect(stolen.status).toBe(404);
    expect(stolen.json['error']).toBe('not_found');
    expect((await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: leaseId })).status).toBe(200);
  });

  it('a long-poll waiting before the continuation falls due receives it', async () => {
    const waiting = claim(alice, 'late', { wait: 30 });
    await readyRun(alice, 'run-cd-late', 'late');
    const claimed = await waiting;
    expect(claimed.status).toBe(200);
    expect(claimed.json['continuation']).toMatchObject({ run_id: 'run-cd-late' });
    const resumeId = claimed.json['resume_id'] as string;
    await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: claimed.json['lease_id'] });
  });

  it('a claim whose asker went away takes nothing: the next claim gets the continuation, at its first attempt', async () => {
    const gone = new AbortController();
    const abandoned = fetch(`${url}/api/continuations/claim`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handlers: ['gone'], wait: 30 }),
      signal: gone.signal,
    }).catch((error: unknown) => error);
    // The claim is on the gateway once another request of the same client has come back after it.
    await alice.get('/api/runs/run-cd-none');
    gone.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    await alice.get('/api/runs/run-cd-none');
    await readyRun(alice, 'run-cd-gone', 'gone');
    const claimed = await claim(alice, 'gone');
    expect(claimed.status).toBe(200);
    expect(claimed.json).toMatchObject({ attempt: 1 });
    expect(claimed.json['continuation']).toMatchObject({ run_id: 'run-cd-gone' });
    await alice.post(`/api/continuations/${claimed.json['resume_id'] as string}/complete`, {
      lease_id: claimed.json['lease_id'],
    });
  });

  it('a lapsed lease is offered again at the next attempt, and its late complete is refused', async () => {
    await readyRun(alice, 'run-cd-lapse', 'lapse');
    const first = await claim(alice, 'lapse', { lease_ms: 1000 });
    expect(first.json).toMatchObject({ attempt: 1 });
    const resumeId = first.json['resume_id'] as string;
    // No extend: once the lease lapses, the stalled check offers the continuation again.
    const second = await claim(alice, 'lapse', { lease_ms: 1000, wait: 20 });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ resume_id: resumeId, attempt: 2 });
    const late = await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: first.json['lease_id'] });
    expect(late.status).toBe(409);
    expect(late.json['error']).toBe('lease_expired');
    const done = await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: second.json['lease_id'] });
    expect(done.status).toBe(200);
    await until(async () => (await runStatus('run-cd-lapse')) === 'resumed', 'the completion to be recorded');
    expect((await alice.get('/api/runs/run-cd-lapse')).json['resume_attempts']).toBe(2);
  });

  it('a continuation reported before its job finished is never offered again', async () => {
    await readyRun(alice, 'run-cd-marked', 'marked');
    const first = await claim(alice, 'marked', { lease_ms: 1000 });
    const resumeId = first.json['resume_id'] as string;
    // As a gateway that died between recording the report and finishing the job leaves it: the mark, a live job.
    const jobKey = `${PREFIX.slice(0, -1)}:handler-marked~${Buffer.from('alice').toString('base64url')}:${resumeId}`;
    expect(await raw.exists(jobKey)).toBe(1);
    await raw.hset(jobKey, 'askgateReported', '1');
    expect((await claim(alice, 'marked', { lease_ms: 1000, wait: 8 })).status).toBe(204);
    expect(
      await raw.zscore(
        `${PREFIX.slice(0, -1)}:handler-marked~${Buffer.from('alice').toString('base64url')}:completed`,
        resumeId,
      ),
    ).not.toBeNull();
  });

  it('fail retries the continuation after the backoff, as the next attempt; extend lengthens a lease', async () => {
    await readyRun(alice, 'run-cd-fail', 'flaky');
    const first = await claim(alice, 'flaky');
    const resumeId = first.json['resume_id'] as string;
    const extended = await alice.post(`/api/continuations/${resumeId}/extend`, {
      lease_id: first.json['lease_id'],
      lease_ms: 120_000,
    });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.json['lease_expires_at'] as string)).toBeGreaterThan(
      Date.parse(first.json['lease_expires_at'] as string),
    );
    const failed = await alice.post(`/api/continuations/${resumeId}/fail`, {
      lease_id: first.json['lease_id'],
      error: 'the deploy API said 503',
      retry_base_ms: 20,
    });
    expect(failed.status).toBe(200);
    expect(failed.json['status']).toBe('retrying');
    const stale = await alice.post(`/api/continuations/${resumeId}/extend`, {
      lease_id: first.json['lease_id'],
      lease_ms: 5000,
    });
    expect(stale.status).toBe(409);
    expect(stale.json['error']).toBe('lease_expired');
    const second = await claim(alice, 'flaky');
    expect(second.json).toMatchObject({ resume_id: resumeId, attempt: 2 });
    await alice.post(`/api/continuations/${resumeId}/complete`, { lease_id: second.json['lease_id'] });
    await until(async () => (await runStatus('run-cd-fail')) === 'resumed', 'the completion to be recorded');
  });

  it('complete with a claim records the completion, then hands on the next continuation (or null)', async () => {
    await readyRun(alice, 'run-cd-next-1', 'next');
    const first = await claim(alice, 'next');
    const resumeId = first.json['resume_id'] as string;
    const lease = first.json['lease_id'];
    // A bad claim refuses the whole request, naming the field inside it, and records nothing.
    const bad = await alice.post(`/api/continuations/${resumeId}/complete`, {
      lease_id: lease,
      claim: { handlers: ['no spaces'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json['field']).toBe('claim.handlers[0]');
    expect(await runStatus('run-cd-next-1')).not.toBe('resumed');
    // The next continuation falls due while the complete waits for it.
    const completing = alice.post(`/api/continuations/${resumeId}/complete`, {
      lease_id: lease,
      output: 'one',
      claim: { handlers: ['next'], wait: 20 },
    });
    await until(async () => (await runStatus('run-cd-next-1')) === 'resumed', 'the first completion');
    await readyRun(alice, 'run-cd-next-2', 'next');
    const done = await completing;
    expect(done.status).toBe(200);
    expect(done.json['status']).toBe('completed');
    const next = done.json['next'] as Record<string, unknown>;
    expect(next).toMatchObject({ handler: 'next', attempt: 1 });
    expect(next['continuation']).toMatchObject({ run_id: 'run-cd-next-2' });
    const last = await alice.post(`/api/continuations/${next['resume_id'] as string}/complete`, {
      lease_id: next['lease_id'],
      claim: { handlers: ['next'], wait: 1 },
    });
    expect(last.json).toEqual({ status: 'completed', next: null });
    await until(async () => (await runStatus('run-cd-next-2')) === 'resumed', 'the second completion');
  });

  it('claims waiting together each receive one of the continuations that fall due together', async () => {
    const waiting = [1, 2, 3, 4].map(() => claim(alice, 'many', { wait: 20 }));
    await alice.get('/api/runs/run-cd-none');
    await Promise.all([1, 2, 3, 4].map((n) => readyRun(alice, `run-cd-many-${n}`, 'many')));
    const claimed = await Promise.all(waiting);
    expect(claimed.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    const runs = claimed.map((c) => (c.json['continuation'] as Record<string, unknown>)['run_id']).sort();
    expect(runs).toEqual(['run-cd-many-1', 'run-cd-many-2', 'run-cd-many-3', 'run-cd-many-4']);
    for (const c of claimed)
      expect(
        (
          await alice.post(`/api/continuations/${c.json['resume_id'] as string}/complete`, {
            lease_id: c.json['lease_id'],
          })
        ).status,
      ).toBe(200);
  });

  it("records a complete whose report script Redis no longer holds while BullMQ's are loaded again", async () => {
    // One report first, so the gateway's connection has sent the script's body and sends its hash from now on.
    await readyRun(alice, 'run-cd-noscript-first', 'noscript');
    const first = await claim(alice, 'noscript');
    await alice.post(`/api/continuations/${first.json['resume_id'] as string}/complete`, {
      lease_id: first.json['lease_id'],
    });
    await readyRun(alice, 'run-cd-noscript', 'noscript');
    const claimed = await claim(alice, 'noscript');
    await raw.script('FLUSH');
    // BullMQ's own scripts are loaded again by a job finished on another queue; askgate's report script is not.
    const scratch = new Queue('scratch-noscript', { connection: { url: redis.url }, prefix: 'scratch' });
    const finishing = new Worker('scratch-noscript', async () => 'ok', {
      connection: { url: redis.url },
      prefix: 'scratch',
    });
    const finished = new Promise((resolve) => finishing.once('completed', resolve));
    await scratch.add('one', {});
    await finished;
    await Promise.all([finishing.close(), scratch.close()]);
    const done = await alice.post(`/api/continuations/${claimed.json['resume_id'] as string}/complete`, {
      lease_id: claimed.json['lease_id'],
    });
    expect(done).toMatchObject({ status: 200, json: { status: 'completed' } });
    await until(async () => (await runStatus('run-cd-noscript')) === 'resumed', 'the completion to be recorded');
  });

  it('refuses bad bodies naming the field, and a token without write', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'handlers'],
      [{ handlers: [] }, 'handlers'],
      [{ handlers: ['no spaces'] }, 'handlers[0]'],
      [{ handlers: ['ok'], wait: 0 }, 'wait'],
      [{ handlers: ['ok'], wait: 61 }, 'wait'],
      [{ handlers: ['ok'], lease_ms: 999 }, 'lease_ms'],
      [{ handlers: ['ok'], extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await alice.post('/api/continuations/claim', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json['field']).toBe(field);
    }
    const noLease = await alice.post('/api/continuations/resume-x/complete', { output: 1 });
    expect(noLease.json).toMatchObject({ error: 'invalid_request', field: 'lease_id' });
    const noError = await alice.post('/api/continuations/resume-x/fail', { lease_id: 'x' });
    expect(noError.json).toMatchObject({ error: 'invalid_request', field: 'error' });
    expect((await api(url, READER).post('/api/continuations/claim', { handlers: ['ok'] })).status).toBe(403);
  });
});

describe('continuation doors on two gateways, ahead of express and through it', () => {
  /** A POST the fast doors leave to express: a content-type parameter they do not take. */
  const viaExpress = async (
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json; profile=express' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  it('a lease taken through one gateway is completed through another; the first then refuses it as completed', async () => {
    const second = await createGateway(
      loadConfig({
        REDIS_URL: redis.url,
        ASKGATE_REDIS_PREFIX: PREFIX,
        LOG_LEVEL: 'silent',
        PORT: '0',
        HOST: '127.0.0.1',
        ASKGATE_TOKENS: JSON.stringify({ [ALICE]: { identity: 'alice', scopes: ['read', 'write', 'answer'] } }),
      }),
      { workers: false },
    );
    try {
      const there = api(await second.listen(), ALICE);
      await readyRun(alice, 'run-cd-two', 'two');
      const claimed = await claim(alice, 'two');
      expect(claimed.status).toBe(200);
      const resumeId = claimed.json['resume_id'] as string;
      const lease = { lease_id: claimed.json['lease_id'] };
      const extended = await there.post(`/api/continuations/${resumeId}/extend`, { ...lease, lease_ms: 60_000 });
      expect(extended.status).toBe(200);
      expect((await there.post(`/api/continuations/${resumeId}/complete`, lease)).status).toBe(200);
      // The gateway that handed the lease out still remembers it: its record of the report must win over that.
      const again = await alice.post(`/api/continuations/${resumeId}/complete`, lease);
      expect(again.status).toBe(409);
      expect(again.json['error']).toBe('already_completed');
      await until(async () => (await runStatus('run-cd-two')) === 'resumed', 'the completion to be recorded');
    } finally {
      await second.close();
    }
  });

  it('the express doors answer claim, extend, fail and complete as the doors ahead of it do', async () => {
    await readyRun(alice, 'run-cd-express', 'express');
    const first = await viaExpress('/api/continuations/claim', { handlers: ['express'], wait: 5 });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ handler: 'express', attempt: 1 });
    expect(first.json['continuation']).toMatchObject({ run_id: 'run-cd-express', attempt: 1 });
    const resumeId = first.json['resume_id'] as string;
    const path = `/api/continuations/${resumeId}`;
    const lease = { lease_id: first.json['lease_id'] };
    expect((await viaExpress(`${path}/extend`, { ...lease, lease_ms: 60_000 })).status).toBe(200);
    const failed = await viaExpress(`${path}/fail`, { ...lease, error: 'try again', retry_base_ms: 20 });
    expect(failed.json['status']).toBe('retrying');
    const stale = await viaExpress(`${path}/complete`, lease);
    expect(stale).toMatchObject({ status: 409, json: { error: 'lease_expired' } });
    const second = await viaExpress('/api/continuations/claim', { handlers: ['express'], wait: 5 });
    expect(second.json).toMatchObject({ resume_id: resumeId, attempt: 2 });
    const done = await viaExpress(`${path}/complete`, { lease_id: second.json['lease_id'], output: { ok: 1 } });
    expect(done).toMatchObject({ status: 200, json: { status: 'completed' } });
    expect((await viaExpress('/api/continuations/claim', { handlers: ['express'], wait: 1 })).status).toBe(204);
    expect((await viaExpress('/api/continuations/claim', { handlers: ['no spaces'] })).json).toMatchObject({
      error: 'invalid_request',
      field: 'handlers[0]',
    });
  });
});

describe('continuation doors on the in-memory store', () => {
  it('answer 409 naming REDIS_URL: no run parks there', async () => {
    const memory = await createGateway(
      loadConfig({
        LOG_LEVEL: 'silent',
        PORT: '0',
        HOST: '127.0.0.1',
        ASKGATE_TOKENS: JSON.stringify({ [ALICE]: { identity: 'alice', scopes: ['read', 'write'] } }),
      }),
      { workers: false },
    );
    try {
      const on = api(await memory.listen(), ALICE);
      const res = await on.post('/api/continuations/claim', { handlers: ['ship'] });
      expect(res.status).toBe(409);
      expect(res.json['error']).toBe('conflict');
      expect(res.json['message']).toContain('REDIS_URL');
      expect((await on.post('/api/continuations/r/complete', { lease_id: 'x' })).status).toBe(409);
    } finally {
      await memory.close();
    }
  });
});
