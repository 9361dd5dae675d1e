import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { COMPLETED_QUEUE } from '../../src/queue/job-protocol.js';
import { startWorker, type Continuation, type ContinuationWorker } from '../../src/sdk/worker.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The job protocol's compatibility rule (docs/sdk.md, "Job protocol"): both sides read version 1, and a job of any
 * other version fails at once, without retries, with a message naming the versions.
 */

const PREFIX = `{jp${Date.now()}}:`;
const QUEUE_PREFIX = PREFIX.slice(0, -1);
let redis: RedisServerHandle;
let raw: Redis;
let gateway: Gateway;
let worker: ContinuationWorker;
const seen: Continuation[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { maxRetriesPerRequest: null });
  const config = loadConfig({ REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: PREFIX, LOG_LEVEL: 'silent' });
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

/** Waits until job `id` of `queue` has failed, and returns it. */
async function failed(queue: Queue, id: string) {
  const end = Date.now() + 10_000;
  while ((await queue.getJobState(id)) !== 'failed') {
    if (Date.now() > end) throw new Error(`job ${id} did not fail`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return queue.getJob(id);
}

const job = (v: number, resumeId: string) => ({
  v,
  resume_id: resumeId,
  run_id: `run-${resumeId}`,
  generation: 1,
  thread: null,
  type: 'run.resumed',
  identity: 'alice',
  kind: 'tool',
  state: null,
});

describe('job protocol versions', () => {
  it('an SDK worker runs a v1 handler job and reports its completion to the gateway', async () => {
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    const completed = new Queue(COMPLETED_QUEUE, { connection: raw, prefix: QUEUE_PREFIX });
    try {
      await handler.add('continuation', job(1, 'resume-v1'), { jobId: 'resume-v1' });
      const end = Date.now() + 10_000;
      while ((await completed.getJobState('resume-v1')) !== 'completed') {
        if (Date.now() > end) throw new Error('the completion was not reported and consumed');
        await new Promise((r) => setTimeout(r, 25));
      }
      expect((await completed.getJob('resume-v1'))?.data).toMatchObject({
        v: 1,
        resume_id: 'resume-v1',
        run_id: 'run-resume-v1',
        generation: 1,
        type: 'run.resumed',
        attempt: 1,
        output: { text: 'noted' },
      });
      // The handler saw the continuation body, without the protocol's envelope.
      const body = seen.find((c) => c.resume_id === 'resume-v1');
      expect(body).toMatchObject({ type: 'run.resumed', run_id: 'run-resume-v1', attempt: 1 });
      expect(body).not.toHaveProperty('v');
      expect(body).not.toHaveProperty('generation');
    } finally {
      await Promise.all([handler.close(), completed.close()]);
    }
  });

  it('an SDK worker fails a handler job of an unknown version at once, naming the versions', async () => {
    const handler = new Queue('handler-note', { connection: raw, prefix: QUEUE_PREFIX });
    try {
      await handler.add('continuation', job(2, 'resume-v2'), { jobId: 'resume-v2', attempts: 5 });
      const failedJob = await failed(handler, 'resume-v2');
      expect(failedJob?.failedReason).toMatch(/job protocol version 2 .*reads v1/);
      expect(failedJob?.attemptsMade).toBe(1); // not retried
      expect(seen.some((c) => c.resume_id === 'resume-v2')).toBe(false);
    } finally {
      await handler.close();
    }
  });

  it('the gateway fails a completion report of an unknown version at once, naming the versions', async () => {
    const completed = new Queue(COMPLETED_QUEUE, { connection: raw, prefix: QUEUE_PREFIX });
    try {
      await completed.add(
        'completed',
        { ...job(3, 'resume-v3'), attempt: 1, output: null },
        { jobId: 'resume-v3', attempts: 5 },
      );
      const failedJob = await failed(completed, 'resume-v3');
      expect(failedJob?.failedReason).toMatch(/job protocol version 3 .*reads v1/);
      expect(failedJob?.attemptsMade).toBe(1);
    } finally {
      await completed.close();
    }
  });
});
