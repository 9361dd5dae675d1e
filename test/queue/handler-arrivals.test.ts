import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { HandlerArrivals } from '../../src/queue/handler-arrivals.js';
import { BullHandlerClaims } from '../../src/queue/handler-claims.js';
import { singleShard } from '../../src/queue/queue-shards.js';
import { ResumeProducer } from '../../src/queue/queues.js';
import type { HandlerJob } from '../../src/runs/job-protocol.js';
import { Keys } from '../../src/store/keys.js';
import { type CoalescedWrites, coalesceWrites } from '../../src/store/redis/write-coalescing.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The producer and the claims of one process, wired as the gateway wires them (one BullMQ connection whose writes
 * leave once per turn), on a real redis-server and BullMQ: a handler job this process adds while a worker's claim
 * waits is taken by a take sent behind the add, not by the tap's blocked read; without the word from the producer,
 * the blocked read takes it.
 */

const PREFIX = 'arrivals-test';
let redis: RedisServerHandle;
let connection: Redis;
let writes: CoalescedWrites;

beforeAll(async () => {
  redis = await startRedisServer();
  // As the gateway's BullMQ connection on a single Redis: its writes leave once per event-loop turn.
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  writes = coalesceWrites(connection);
});

afterAll(async () => {
  connection.disconnect();
  await redis.stop();
});

function handlerJob(runId: string): HandlerJob {
  return {
    v: 2,
    resume_id: `resume-${runId}`,
    run_id: runId,
    generation: 1,
    identity: 'ops',
    thread: null,
    type: 'run.resumed',
    // Only the queue (handler and identity) matters here: the claims hand a job's data on as it is.
  } as unknown as HandlerJob;
}

/**
 * Claims a continuation while the producer adds it, after a first one (the queue open, BullMQ's scripts loaded: a
 * first add waits for both, and its take would go out ahead of it); which kind of take found the second.
 */
async function claimWhileAdded(
  wired: boolean,
  runId: string,
): Promise<{ claimed: string | undefined; found: string[] }> {
  const keys = new Keys(PREFIX);
  const arrivals = new HandlerArrivals();
  const claims = new BullHandlerClaims({
    connection,
    shardKeys: [keys],
    lockMs: 30_000,
    backoffMs: 1_000,
    runRetentionMs: 60_000,
    logger: createLogger('silent'),
    arrivals,
    ...(wired ? { sendNextAtOnce: () => writes.sendNextAtOnce() } : {}),
  });
  const producer = new ResumeProducer(
    connection,
    singleShard(keys),
    wired ? arrivals : null,
    wired ? writes.sendNextAtOnce : undefined,
  );
  const found: string[] = [];
  const take = Worker.prototype.getNextJob;
  const spy = vi.spyOn(Worker.prototype, 'getNextJob').mockImplementation(async function (this: Worker, ...args) {
    const job = await take.apply(this, args);
    if (job !== undefined) found.push(args[1]?.block === false ? 'ahead' : 'blocking');
    return job;
  });
  const claim = () =>
    claims.claim({
      identity: 'ops',
      handlers: ['deploy'],
      waitMs: 10_000,
      leaseMs: null,
      signal: new AbortController().signal,
    });
  try {
    // A first continuation opens the producer's queue and the claims' tap, as a gateway's first resume does.
    await producer.enqueueHandler('deploy', `resume-${runId}-first`, handlerJob(`${runId}-first`));
    expect((await claim())?.resumeId).toBe(`resume-${runId}-first`);
    found.length = 0;
    const waiting = claim();
    // The claim's tap is blocked on the empty queue before the job comes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await producer.enqueueHandler('deploy', `resume-${runId}`, handlerJob(runId));
    const claimed = (await waiting)?.resumeId;
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { claimed, found };
  } finally {
    spy.mockRestore();
    await producer.close();
    await claims.close();
  }
}

describe('a handler job the producer adds', () => {
  it('leaves for Redis at once, not at the end of the turn that added it', async () => {
    const keys = new Keys(PREFIX);
    const left: boolean[] = [];
    for (const atOnce of [true, false]) {
      const producer = new ResumeProducer(
        connection,
        singleShard(keys),
        null,
        atOnce ? writes.sendNextAtOnce : undefined,
      );
      try {
        // A first add opens the queue and loads BullMQ's script on the connection (both wait for Redis).
        await producer.enqueueHandler('ship', `resume-once-${atOnce}-first`, handlerJob(`once-${atOnce}-first`));
        // Runs in this turn's check phase ahead of the connection's own flush (set up by the add, after this).
        const checked = new Promise<void>((resolve) =>
          setImmediate(() => {
            left.push(connection.stream.writableLength === 0);
            resolve();
          }),
        );
        const added = producer.enqueueHandler('ship', `resume-once-${atOnce}`, handlerJob(`once-${atOnce}`));
        await checked;
        await added;
      } finally {
        await producer.close();
      }
    }
    expect(left).toEqual([true, false]);
  });
});

describe('handler arrivals', () => {
  it('let this process take the handler job it added behind the add, not on the blocked read', async () => {
    expect(await claimWhileAdded(true, 'run-a')).toEqual({ claimed: 'resume-run-a', found: ['ahead'] });
  });

  it('leave the blocked read to take it when the producer says nothing', async () => {
    expect(await claimWhileAdded(false, 'run-b')).toEqual({ claimed: 'resume-run-b', found: ['blocking'] });
  });
});
