import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import type { Identity } from '../../src/core/types.js';
import { COMPLETED_QUEUE, COMPLETIONS_GROUP, REPORTED_FIELD } from '../../src/runs/job-protocol.js';
import { startWorker, type Continuation, type ContinuationWorker } from '../../src/sdk/worker.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The job protocol (docs/sdk.md, "Job protocol"): the gateway writes version 2 (reports through the completions
 * stream) and still records version-1 reports (the `completed` queue); the SDK worker runs handler jobs of both
 * versions and reports each its own version's way; a job or report of any other version is refused, naming the
 * versions.
 */

const PREFIX = `{jp${Date.now()}}:`;
const QUEUE_PREFIX = PREFIX.slice(0, -1);
const STREAM = `${PREFIX}completions`;
let redis: RedisServerHandle;
let raw: Redis;
let gateway: Gateway;
let worker: ContinuationWorker;
const seen: Continuation[] = [];
const alice: Identity = { name: 'alice', scopes: new Set(['read', 'write', 'answer']), webhookSecret: null };

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { maxRetriesPerRequest: null });
  const config = loadConfig({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    LOG_LEVEL: 'silent',
    // A dead consumer's entries are reclaimed after this long (the reclaim test).
    ASKGATE_RESUME_LOCK_MS: '1000',
  });
  gateway = await createGateway(config, { workers: true });
  worker = await startWorker({
    redisUrl: redis.url,
    prefix: PREFIX,
    backoffMs: 50,
    handlers: {
      note: (c) => {
        seen.push(c);
        return { text: 'noted' };
      },
    },
  });
});

afterAll(async () => {
  await worker?.close();
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

/** Waits until job `id` of `queue` has failed, and returns it. */
async function failed(queue: Queue, id: string) {
  await until(async () => (await queue.getJobState(id)) === 'failed', `job ${id} to fail`);
  return queue.getJob(id);
}

const job = (v: number, resumeId: string, runId = `run-${resumeId}`) => ({
  v,
  resume_id: resumeId,
  run_id: runId,
  generation: 1,
  thread: null,
  type: 'run.resumed',
  identity: 'alice',
  kind: 'tool',
  state: null,
});

const status = (runId: string) => raw.hget(`${PREFIX}r:${runId}`, 's');

/** Parks a run on one confirm ask resumed by `handler`, and answers it: the run is ready. */
async function readyRun(runId: string, handler: string): Promise<void> {
  const record = await gateway.service.ask(
    {
      question: 'Ship it?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: new Date(Date.now() + 3_600_000).toISOString(),
      run: { run_id: runId, resume: { handler } },
    },
    alice,
  );
  await gateway.service.offerAnswer({ interactionId: record.id, answer: true, surface: 'api', answeredBy: 'alice' });
}

describe('job protocol versions', () => {
  it('v2: the gateway adds a v2 handler job; the SDK worker marks it and reports to the stream; the gateway records the completion and deletes the entry', async () => {
    await readyRun('run-v2', 'note');
    await until(async () => (await status('run-v2')) === 'resumed', 'the v2 completion to be recorded');
    const body = seen.find((c) => c.run_id === 'run-v2');
    expect(body).toMatchObject({ type: 'run.resumed', attempt: 1 });
    expect(body).not.toHaveProperty('v');
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    try {
      const done = await handler.getJob(body?.resume_id as string);
      expect(done?.data).toMatchObject({ v: 2, run_id: 'run-v2', generation: 1 });
      expect(await raw.hget(handler.toKey(done?.id as string), REPORTED_FIELD)).toBe('1');
    } finally {
      await handler.close();
    }
    // Recorded, so deleted and acknowledged: nothing left in the stream or pending in the group.
    await until(async () => (await raw.xlen(STREAM)) === 0, 'the entry to be deleted');
    const pending = (await raw.xpending(STREAM, COMPLETIONS_GROUP)) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('v2: a rerun of a job already reported (a crash between the report and the completion) runs nothing', async () => {
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    try {
      // As a worker that died after its MULTI leaves it: the job ran once (attemptsMade 1) and holds the mark.
      await handler.add('continuation', job(2, 'resume-rerun'), { jobId: 'resume-rerun', delay: 60_000 });
      await raw.hset(handler.toKey('resume-rerun'), REPORTED_FIELD, '1', 'atm', '1');
      await (await handler.getJob('resume-rerun'))?.promote();
      await until(async () => (await handler.getJobState('resume-rerun')) === 'completed', 'the rerun to finish');
      expect(seen.some((c) => c.resume_id === 'resume-rerun')).toBe(false);
      expect(await raw.xlen(STREAM)).toBe(0);
    } finally {
      await handler.close();
    }
  });

  it('v1: an SDK worker runs a v1 handler job (an older gateway added it) and reports to the completed queue, which the gateway drains and records', async () => {
    // The run is ready under handler "v1" (its v2 job waits for a worker nobody runs); the v1 job reaches "note".
    await readyRun('run-v1', 'v1');
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    const completed = new Queue(COMPLETED_QUEUE, { connection: raw, prefix: QUEUE_PREFIX });
    const reports = new QueueEvents(COMPLETED_QUEUE, { connection: raw.duplicate(), prefix: QUEUE_PREFIX });
    const added: unknown[] = [];
    reports.on('added', ({ jobId }) => added.push(jobId));
    await reports.waitUntilReady();
    try {
      await handler.add('continuation', job(1, 'resume-v1', 'run-v1'), { jobId: 'resume-v1' });
      await until(async () => (await status('run-v1')) === 'resumed', 'the v1 report to be recorded');
      expect(added).toContain('resume-v1');
      // Drained: the report job is removed once recorded.
      await until(async () => (await completed.getJobState('resume-v1')) === 'unknown', 'the report to be removed');
      const body = seen.find((c) => c.resume_id === 'resume-v1');
      expect(body).toMatchObject({ type: 'run.resumed', run_id: 'run-v1', attempt: 1 });
      expect(body).not.toHaveProperty('generation');
    } finally {
      await reports.close();
      await Promise.all([handler.close(), completed.close()]);
    }
  });

  it('an SDK worker fails a handler job of an unknown version at once, naming the versions', async () => {
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    try {
      await handler.add('continuation', job(3, 'resume-v3'), { jobId: 'resume-v3', attempts: 5 });
      const failedJob = await failed(handler, 'resume-v3');
      expect(failedJob?.failedReason).toMatch(/job protocol version 3 .*reads v1 and v2/);
      expect(failedJob?.attemptsMade).toBe(1); // not retried
      expect(seen.some((c) => c.resume_id === 'resume-v3')).toBe(false);
    } finally {
      await handler.close();
    }
  });

  it('the gateway refuses a stream report of an unknown version (deleted, nothing recorded) and records the next', async () => {
    await readyRun('run-after-v3', 'v3');
    await raw.xadd(
      STREAM,
      '*',
      'r',
      JSON.stringify({ ...job(3, 'resume-x3', 'run-after-v3'), attempt: 1, output: null }),
    );
    expect(await status('run-after-v3')).toBe('ready');
    // The same report at v2, behind it: recorded. Entries are read in order, so the v3 one was read first.
    await raw.xadd(
      STREAM,
      '*',
      'r',
      JSON.stringify({ ...job(2, 'resume-x3', 'run-after-v3'), attempt: 1, output: null }),
    );
    await until(async () => (await status('run-after-v3')) === 'resumed', 'the v2 report to be recorded');
    await until(async () => (await raw.xlen(STREAM)) === 0, 'both entries to be deleted');
  });

  it('the gateway removes a v1-queue report of an unknown version unread', async () => {
    await readyRun('run-q3', 'q3');
    const completed = new Queue(COMPLETED_QUEUE, { connection: raw, prefix: QUEUE_PREFIX });
    try {
      await completed.add(
        'completed',
        { ...job(3, 'resume-q3', 'run-q3'), attempt: 1, output: null },
        { jobId: 'resume-q3' },
      );
      await until(async () => (await completed.getJobState('resume-q3')) === 'unknown', 'the report to be removed');
      expect(await status('run-q3')).toBe('ready');
    } finally {
      await completed.close();
    }
  });

  it('an entry read by a consumer that died unacknowledged is taken over and recorded after the lock time', async () => {
    await readyRun('run-orphan', 'orphan');
    // A consumer that reads the report and dies: the entry is pending on it, never acknowledged.
    const dead = new Redis(redis.url);
    try {
      await dead.xgroup('CREATE', STREAM, COMPLETIONS_GROUP, '0', 'MKSTREAM').catch(() => undefined);
      // Park the live consumers' reads out of the way: the dead one must be the reader. Add and read in one MULTI.
      const [, read] = (await dead
        .multi()
        .xadd(STREAM, '*', 'r', JSON.stringify({ ...job(2, 'resume-orphan', 'run-orphan'), attempt: 1, output: null }))
        .xreadgroup('GROUP', COMPLETIONS_GROUP, 'dead-consumer', 'COUNT', 10, 'STREAMS', STREAM, '>')
        .exec()) as [[null, string], [null, Array<[string, Array<[string, string[]]>]> | null]];
      expect(read[1]?.[0]?.[1].length).toBe(1);
    } finally {
      dead.disconnect();
    }
    expect(await status('run-orphan')).toBe('ready');
    await until(async () => (await status('run-orphan')) === 'resumed', 'the orphaned report to be reclaimed');
    await until(async () => (await raw.xlen(STREAM)) === 0, 'the reclaimed entry to be deleted');
  });
});
