import { type Job, type JobsOptions, Queue, Worker, type WorkerOptions } from 'bullmq';
import { jitteredBackoffMs } from '../core/backoff.js';
import type { ConversationTurnPayload } from '../runs/continuation.js';
import { type ReplyJobData, replyJobId, resumeJobId } from '../runs/job-bus.js';
import type { HandlerJob } from '../runs/job-protocol.js';
import type { RedisClient } from '../store/redis/connections.js';
import type { HandlerArrivals } from './handler-arrivals.js';
import { type QueueShards, shardKeys } from './queue-shards.js';

/**
 * The BullMQ queues of parks. Every queue lives under a shard's `queuePrefix` (`{askgate}` by default; `{askgate:k}`
 * for shard k ≥ 1 with ASKGATE_SHARDS > 1, queue-shards.ts), so its keys share the Redis Cluster hash tag of the
 * store's keys of that shard. A run's jobs go to the queues of the run's shard; askgate and SDK workers work all.
 *
 * | queue            | consumed by                       | one job per                                        |
 * |------------------|-----------------------------------|----------------------------------------------------|
 * | `resume`         | askgate worker                    | park of a run that became ready or dying            |
 * | `handler-<name>~<identity>` | claims through the continuation doors | continuation of a run whose resume is a handler |
 * | `turn`           | askgate worker                    | chat message routed to a webhook target             |
 * | `reply`          | askgate worker                    | reply of a chat-reached run: at once, or per resume |
 * | `completed`      | askgate worker                    | completion reports of job protocol v1 (src/runs/job-protocol.ts) |
 *
 * The connection is the process's BullMQ connection (src/store/redis/connections.ts, `queue()`).
 */
export const RESUME_QUEUE = 'resume';
export const TURN_QUEUE = 'turn';
export const REPLY_QUEUE = 'reply';

/**
 * The queue of handler `handler`'s continuations of runs parked by `identity` (a route's turns: the route's identity):
 * one queue per identity, so a worker claiming through the continuation doors (queue/handler-claims.ts) takes only
 * its own identity's continuations. Identities are free text, hence base64url.
 */
export function handlerQueueName(handler: string, identity: string): string {
  return `handler-${handler}~${Buffer.from(identity).toString('base64url')}`;
}

/** Retries of a reply post: a channel that is down for a day is not worth a reply nobody waits for any more. */
export const REPLY_ATTEMPTS = 30;

/** Adds a reply job under its deterministic id (a second add is a no-op). */
export async function addReply(queue: Queue<ReplyJobData>, data: ReplyJobData): Promise<void> {
  await queue.add('reply', data, {
    ...JOB_DEFAULTS,
    attempts: REPLY_ATTEMPTS,
    jobId: replyJobId(data.runId, data.generation),
  });
}

export interface ResumeJobData {
  runId: string;
  generation: number;
}

/** Retries of a continuation (a webhook that is down, a handler that throws): effectively until it succeeds. */
export const CONTINUATION_ATTEMPTS = 100_000;

/** Completed jobs are kept a day, so a late duplicate enqueue within that day finds the id and does nothing. */
export const JOB_DEFAULTS: JobsOptions = {
  attempts: CONTINUATION_ATTEMPTS,
  backoff: { type: 'askgate' },
  removeOnComplete: { age: 86_400 },
  removeOnFail: { age: 7 * 86_400 },
};

/** The retry delay of a run job: the shared jittered doubling (core/backoff.ts), capped at 15 minutes. */
export function backoffDelay(attemptsMade: number, baseMs: number, capMs = 15 * 60_000): number {
  return jitteredBackoffMs(attemptsMade, baseMs, capMs);
}

/** What every askgate worker of a continuation-like queue is built from (the workers' own options). */
export interface WorkerBasis {
  connection: RedisClient;
  /** The queue prefix of every shard, shard 0 first (queue-shards.ts): a worker works the queue of each. */
  queuePrefixes: readonly string[];
  /** How long a silent worker keeps its job before another takes it over, ms. */
  lockMs: number;
  /** The first retry delay, ms (doubling, jittered: `backoffDelay`). */
  backoffMs: number;
}

/**
 * The BullMQ worker options askgate's workers share: the process's queue connection, the lock after which a killed
 * worker's job runs elsewhere (stalled jobs are checked as often), and the jittered doubling backoff. A worker that
 * reads a platform's own wait (a 429's retry_after) passes `retryAfterMs` to honour it instead. The prefix is each
 * shard's, set by `workersPerShard`.
 */
export function workerOptions(
  basis: WorkerBasis,
  concurrency: number,
  retryAfterMs?: (err: Error | undefined) => number | null,
): WorkerOptions {
  return {
    connection: basis.connection,
    concurrency,
    lockDuration: basis.lockMs,
    stalledInterval: basis.lockMs,
    settings: {
      backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
        retryAfterMs?.(err) ?? backoffDelay(attemptsMade, basis.backoffMs),
    },
  };
}

/**
 * One BullMQ Worker of `queue` per shard, each running `processor` (a worker process works every shard's queue). BullMQ
 * gives each Worker a blocking connection of its own, so this costs one connection per shard (docs/architecture.md).
 */
export function workersPerShard<T>(
  basis: WorkerBasis,
  queue: string,
  processor: (job: Job<T>) => Promise<void>,
  options: WorkerOptions,
): Array<Worker<T>> {
  return basis.queuePrefixes.map((prefix) => new Worker<T>(queue, processor, { ...options, prefix }));
}

/**
 * Enqueues resume, handler, turn and reply jobs (the serve side and the worker side both do), each on the queue of
 * its run's shard. A job's id is deterministic and a run's shard is fixed, so a second enqueue of one job, from
 * whichever process, meets the first in the same queue and adds nothing. Queues are opened on first use, on the
 * process's one BullMQ connection (a Queue opens no connection of its own).
 */
export class ResumeProducer {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: RedisClient,
    private readonly shards: QueueShards,
    /** Told of every handler job this process adds (handler-arrivals.ts); none in a process that claims nothing. */
    private readonly arrivals: HandlerArrivals | null = null,
    /**
     * Has the next command on `connection` leave at once rather than at the end of the event-loop turn (its writes
     * are coalesced per turn), then runs `afterSent` (RedisConnections.sendNextQueueCommandAtOnce). Without it the
     * add leaves at the turn's end and `afterSent` runs then, so a take it sends joins the add's write.
     */
    private readonly sendNextAtOnce: (afterSent?: () => void) => void = (afterSent) => {
      if (afterSent !== undefined) setImmediate(afterSent);
    },
  ) {}

  private async queue<T>(name: string, runId: string): Promise<Queue<T>> {
    return this.queueOfShard<T>(name, await this.shards.ofRun(runId));
  }

  private queueOfShard<T>(name: string, shard: number): Queue<T> {
    const key = `${shard}/${name}`;
    let queue = this.queues.get(key);
    if (queue === undefined) {
      queue = new Queue(name, { connection: this.connection, prefix: shardKeys(this.shards, shard).queuePrefix });
      this.queues.set(key, queue);
    }
    return queue as Queue<T>;
  }

  /** Adds the resume job of park `generation` of `runId`; a no-op when that job exists already. */
  async enqueueResume(runId: string, generation: number): Promise<void> {
    await (await this.queue<ResumeJobData>(RESUME_QUEUE, runId)).add(
      'resume',
      { runId, generation },
      { ...JOB_DEFAULTS, jobId: resumeJobId(runId, generation) },
    );
  }

  /**
   * Hands a continuation to the handler workers of `handler` (claims of the run's identity, handler-claims.ts),
   * under the same deterministic id; `data` is a handler job of the job protocol (job-protocol.ts). Its run's shard
   * holds it, and its complete reports to that shard's completions stream.
   */
  async enqueueHandler(handler: string, jobId: string, data: HandlerJob): Promise<void> {
    const name = handlerQueueName(handler, data.identity);
    const shard = await this.shards.ofRun(data.run_id);
    const queue = this.queueOfShard<HandlerJob>(name, shard);
    const arrivals = this.arrivals;
    const tell = arrivals === null ? undefined : () => arrivals.added(shard, name);
    // A worker's claim may be waiting for this job: the add leaves now, not after the rest of this turn (the reply to
    // the answer that resumed the run, other requests), and this process's claims send their take right behind it.
    this.sendNextAtOnce(tell);
    await queue.add('continuation', data, { ...JOB_DEFAULTS, jobId });
  }

  /** Queues a chat turn for a webhook target (the askgate worker POSTs it). */
  async enqueueTurn(jobId: string, data: ConversationTurnPayload): Promise<void> {
    await (await this.queue<ConversationTurnPayload>(TURN_QUEUE, data.run_id)).add('turn', data, {
      ...JOB_DEFAULTS,
      jobId,
    });
  }

  /** Queues a reply into a chat thread under its deterministic id (a second enqueue is a no-op). */
  async enqueueReply(data: ReplyJobData): Promise<void> {
    await addReply(await this.queue<ReplyJobData>(REPLY_QUEUE, data.runId), data);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
