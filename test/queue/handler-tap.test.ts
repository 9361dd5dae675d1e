import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { Tap, type Waiter } from '../../src/queue/handler-tap.js';
import type { ClaimedContinuation } from '../../src/runs/handler-claims.js';
import type { HandlerJob } from '../../src/runs/job-protocol.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * A tap (src/queue/handler-tap.ts) on a real redis-server and BullMQ: while continuations queue up faster than one take
 * per round trip, takes run beside the tap's loop; while they fall due one at a time, the loop takes alone (no
 * take that can only come back empty). Its Worker's takes are counted as they run, each still BullMQ's own.
 */

const PREFIX = '{tap-test}';
let redis: RedisServerHandle;
let connection: Redis;
let round = 0;
let queue: Queue<HandlerJob>;
let tap: Tap;
let inFlight = 0;
let mostInFlight = 0;

function job(i: number): HandlerJob {
  return {
    v: 2,
    resume_id: `resume-${round}-${i}`,
    run_id: `run-${round}-${i}`,
    generation: 1,
    thread: null,
    type: 'run.resumed',
    // The tap hands a job's data on as it is (continuationOf): the rest of a continuation does not matter here.
  } as unknown as HandlerJob;
}

/** A claimer as BullHandlerClaims makes one: settled once, then gone from the tap. */
function waiter(): { waiter: Waiter; claimed: Promise<ClaimedContinuation | null> } {
  let resolve: (claimed: ClaimedContinuation | null) => void = () => undefined;
  const claimed = new Promise<ClaimedContinuation | null>((r) => {
    resolve = r;
  });
  const w: Waiter = {
    request: {
      identity: 'bench',
      handlers: ['h'],
      waitMs: 10_000,
      leaseMs: null,
      signal: new AbortController().signal,
    },
    settled: false,
    settle: (c) => {
      w.settled = true;
      tap.remove(w);
      resolve(c);
    },
  };
  return { waiter: w, claimed };
}

beforeAll(async () => {
  redis = await startRedisServer();
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  connection.disconnect();
  await redis.stop();
});

beforeEach(async () => {
  round++;
  const name = `handler-h~t${round}`;
  queue = new Queue<HandlerJob>(name, { connection, prefix: PREFIX });
  tap = new Tap('h', 0, name, PREFIX, 30_000, {
    connection,
    shardKeys: [],
    lockMs: 30_000,
    backoffMs: 1_000,
    runRetentionMs: 60_000,
    logger: createLogger('silent'),
  });
  inFlight = 0;
  mostInFlight = 0;
  const take = tap.worker.getNextJob.bind(tap.worker);
  tap.worker.getNextJob = async (...args: Parameters<typeof take>) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      return await take(...args);
    } finally {
      inFlight--;
    }
  };
  return async () => {
    await tap.close();
    await queue.close();
  };
});

describe('a handler tap', () => {
  it('takes beside its loop while continuations queue up, one job per claimer', async () => {
    await queue.addBulk(
      Array.from({ length: 12 }, (_, i) => ({ name: 'continuation', data: job(i), opts: { jobId: job(i).resume_id } })),
    );
    const claimers = Array.from({ length: 12 }, () => waiter());
    for (const c of claimers) tap.add(c.waiter);
    const claimed = await Promise.all(claimers.map((c) => c.claimed));
    const ids = claimed.map((c) => c?.resumeId);
    expect(new Set(ids).size).toBe(12);
    expect([...ids].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `resume-${round}-${i}`).sort());
    // The loop's take and the three beside it (EXTRA_TAKERS) at once.
    expect(mostInFlight).toBe(4);
    expect(await queue.getWaitingCount()).toBe(0);
    expect(await queue.getActiveCount()).toBe(12);
  });

  it('takes alone while continuations fall due one at a time', async () => {
    const claimers = Array.from({ length: 6 }, () => waiter());
    for (const c of claimers) tap.add(c.waiter);
    for (let i = 0; i < 6; i++) {
      await queue.add('continuation', job(i), { jobId: job(i).resume_id });
      // The next job is added only once this one is handed out.
      await until(() => claimers.filter((c) => c.waiter.settled).length === i + 1);
    }
    const ids = (await Promise.all(claimers.map((c) => c.claimed))).map((c) => c?.resumeId);
    expect(ids).toEqual(Array.from({ length: 6 }, (_, i) => `resume-${round}-${i}`));
    expect(mostInFlight).toBe(1);
  });
});

describe('a job this process added', () => {
  /**
   * Which takes came back with a job, as `blocking` or `ahead` (without blocking), in the order they returned; and
   * every take without blocking, as `ahead` or `ahead, empty`.
   */
  function recordTakes(): { found: string[]; ahead: string[] } {
    const found: string[] = [];
    const ahead: string[] = [];
    const take = tap.worker.getNextJob.bind(tap.worker);
    tap.worker.getNextJob = async (...args: Parameters<typeof take>) => {
      const job = await take(...args);
      if (job !== undefined) found.push(args[1]?.block === false ? 'ahead' : 'blocking');
      if (args[1]?.block === false) ahead.push(job === undefined ? 'ahead, empty' : 'ahead');
      return job;
    };
    return { found, ahead };
  }

  it('is taken at once by a take without blocking when a claimer waits on the blocked loop', async () => {
    const { found } = recordTakes();
    const claimer = waiter();
    tap.add(claimer.waiter);
    // The loop is blocked on the empty queue before the job comes.
    await until(() => inFlight === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const added = queue.add('continuation', job(0), { jobId: job(0).resume_id });
    tap.takeAhead();
    await added;
    expect((await claimer.claimed)?.resumeId).toBe(`resume-${round}-0`);
    // One job, one take that found it, and not the blocked one (which, should it wake, finds nothing).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(found).toEqual(['ahead']);
    expect(mostInFlight).toBe(2);
    expect(await queue.getActiveCount()).toBe(1);
  });

  it('is taken by one take ahead however many claimers still wait', async () => {
    const { ahead } = recordTakes();
    const claimers = Array.from({ length: 4 }, () => waiter());
    for (const c of claimers) tap.add(c.waiter);
    await until(() => inFlight === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const added = queue.add('continuation', job(0), { jobId: job(0).resume_id });
    tap.takeAhead();
    await added;
    await until(() => claimers.some((c) => c.waiter.settled));
    // Three claimers wait on: a second take beside the loop would find the queue empty.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ahead).toEqual(['ahead']);
    expect(claimers.filter((c) => c.waiter.settled)).toHaveLength(1);
    expect(await queue.getActiveCount()).toBe(1);
  });

  it('starts no take ahead when no claimer waits unserved', async () => {
    const { found } = recordTakes();
    tap.takeAhead();
    await queue.add('continuation', job(0), { jobId: job(0).resume_id });
    expect(mostInFlight).toBe(0);
    const claimer = waiter();
    tap.add(claimer.waiter);
    expect((await claimer.claimed)?.resumeId).toBe(`resume-${round}-0`);
    expect(found).toEqual(['blocking']);
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}
