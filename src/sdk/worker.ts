import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { ContinuationPayload, ConversationTurnPayload } from '../runs/continuation.js';
import {
  COMPLETED_QUEUE,
  REPORTED_FIELD,
  continuationOf,
  unsupportedVersion,
  type CompletionJob,
  type HandlerJob,
} from '../runs/job-protocol.js';
import { JOB_DEFAULTS, backoffDelay, handlerQueueName } from '../queue/queues.js';
import { HANDLER_NAME } from '../runs/job-bus.js';
import { DEFAULT_KEY_PREFIX } from '../store/keys.js';
import { RedisConnections } from '../store/redis/connections.js';
import { runReport } from '../store/redis/scripts/index.js';
import { readShards } from '../store/redis/shard-record.js';
import { AskgateSdkError } from './errors.js';

/**
 * What a handler receives, with which attempt this is (1 on the first run): a continuation body (`run.resumed`,
 * `run.killed`), or — for a handler that is the target of a chat route — a `conversation.turn`.
 */
export type Continuation = (ContinuationPayload | ConversationTurnPayload) & { attempt: number };

/**
 * A continuation registered under a name. It runs when a run parked with `{"resume": {"handler": "<name>"}}`
 * resumes (`type: "run.resumed"`) or is killed (`type: "run.killed"`). A throw is retried with backoff. Its return
 * value is the run's output: for a run reached over chat, the reply mapped into the originating thread.
 */
export type ContinuationHandler = (continuation: Continuation) => unknown;

/** Options of `startWorker`. */
export interface ContinuationWorkerOptions {
  /** The gateway's Redis, `redis://...`, or its Redis Cluster, `redis+cluster://host:port,...`. Required. */
  redisUrl: string;
  /** The gateway's `ASKGATE_REDIS_PREFIX`. Default `{askgate}:`. */
  prefix?: string;
  /** Continuations by name. Required, at least one. */
  handlers: Record<string, ContinuationHandler>;
  /** Continuations run at once per handler and shard (with ASKGATE_SHARDS = N, up to N × this per handler). Default 8. */
  concurrency?: number;
  /**
   * How long this worker may go silent (killed, frozen) before its running continuation is taken for abandoned and
   * run again on another worker, ms. Default 30000.
   */
  lockDurationMs?: number;
  /** First retry delay after a handler throws, ms (doubles per attempt, with jitter, capped at 15 min). Default 1000. */
  backoffMs?: number;
  /**
   * How often the worker reads the gateway's recorded shard count (`ASKGATE_SHARDS`, docs/scaling.md), ms: when a
   * gateway raised it, the worker starts working the new shards' queues. Default 10000.
   */
  shardsRefreshMs?: number;
  /**
   * Ignored; kept so existing callers still type-check. The gateway applies its own retention when it records the
   * completion this worker reports.
   * @deprecated
   */
  retentionMinutes?: number;
}

/** ASKGATE_SHARDS's ceiling: a recorded count above it is not the gateway's, and is not followed further. */
const MAX_RECORDED_SHARDS = 64;

/** A running continuation worker. */
export interface ContinuationWorker {
  /** Waits for running continuations, then stops. */
  close(): Promise<void>;
}

/**
 * Runs registered continuations for parked runs, in any number of processes beside any number of gateways.
 *
 * It speaks the gateway's job protocol (docs/sdk.md, "Job protocol"; src/runs/job-protocol.ts), versions 2 and 1:
 * it takes jobs from `handler-<name>` and reports each handler's return value to the gateway — a version-2 job to
 * the completions stream, a version-1 job (added by an older gateway) to the `completed` queue; the gateway records
 * the completion and posts any chat reply. It reads no run and runs none of the gateway's scripts.
 *
 * The guarantee: a continuation that completed never runs again. Its completion report is written right after the
 * handler returns and before the job completes (version 2: in one script with a mark in the job's own hash), and
 * every rerun of a job looks for that report first. A worker that dies while a handler runs leaves the job locked until `lockDurationMs` passes;
 * BullMQ's stalled-job check then runs it once more, on a live worker, with the same `resume_id` and `attempt` + 1.
 * Handler side effects outside askgate should therefore be idempotent on `resume_id`.
 *
 * ```ts
 * import { startWorker } from 'askgate';
 * const worker = await startWorker({ redisUrl: process.env.REDIS_URL!, handlers: {
 *   deploy: async (c) => { if (c.type === 'run.resumed' && c.ask_result?.answer === true) await deploy(c.state); },
 * } });
 * ```
 */
export async function startWorker(options: ContinuationWorkerOptions): Promise<ContinuationWorker> {
  const names = Object.keys(options.handlers ?? {});
  if (names.length === 0)
    throw new AskgateSdkError(
      'handlers is empty; register at least one continuation, e.g. { handlers: { deploy: async (c) => {...} } }.',
    );
  const bad = names.find((n) => !HANDLER_NAME.test(n));
  if (bad !== undefined)
    throw new AskgateSdkError(
      `handler name "${bad}" must be 1..100 letters, digits, "_", "." or "-" (as in run.resume.handler).`,
    );
  const lockDuration = options.lockDurationMs ?? 30_000;
  const backoffMs = options.backoffMs ?? 1000;
  // Only the BullMQ connection: each Worker below duplicates it once for its blocking reads.
  const connections = new RedisConnections({ url: options.redisUrl, prefix: options.prefix ?? DEFAULT_KEY_PREFIX });
  const connection = connections.queue();
  const deployment = connections.keys;

  // Version 1's report queue (shard 0: version 1 predates shards), opened only if a version-1 job turns up.
  let legacyCompleted: Queue<CompletionJob> | null = null;
  const legacy = (): Queue<CompletionJob> => {
    legacyCompleted ??= new Queue<CompletionJob>(COMPLETED_QUEUE, { connection, prefix: deployment.queuePrefix });
    return legacyCompleted;
  };

  /** Whether this continuation was reported already (the job's version says where the report lives). */
  const reported = async (worker: Worker<HandlerJob>, job: Job<HandlerJob>): Promise<boolean> => {
    const id = job.data.resume_id;
    if (job.data.v === 1) return (await legacy().getJobState(id)) !== 'unknown';
    return (await connection.hexists(worker.toKey(job.id ?? id), REPORTED_FIELD)) === 1;
  };

  /**
   * Writes the report before the job completes, to the completions stream of the job's own shard (`completions`):
   * the mark in the job's hash and the report share that shard's hash tag, so the script stays in one slot. A second
   * report of one continuation is harmless (see below).
   */
  const report = async (
    worker: Worker<HandlerJob>,
    job: Job<HandlerJob>,
    completions: string,
    data: CompletionJob,
  ): Promise<void> => {
    if (data.v === 1) {
      // A fixed id: a second report of one continuation is a no-op.
      await legacy().add('completed', data, { ...JOB_DEFAULTS, jobId: data.resume_id });
      return;
    }
    // One script (scripts/report-2.lua): the mark that stops a rerun and the report the gateway records exist together or
    // not at all. The gateway's recording is idempotent (run-complete checks status and generation; the reply has a
    // fixed job id).
    await runReport(connection, worker.toKey(job.id ?? data.resume_id), completions, JSON.stringify(data));
  };

  const run = async (
    worker: Worker<HandlerJob>,
    handler: ContinuationHandler,
    completions: string,
    job: Job<HandlerJob>,
  ): Promise<unknown> => {
    const unsupported = unsupportedVersion(job.data, 'this SDK worker');
    if (unsupported !== null) throw new UnrecoverableError(unsupported);
    const data = job.data;
    // Reported already (a rerun after a crash between the report and the job's completion): never run it again. Only
    // a job that ran before — a retry, or one taken back from a stalled worker — can have been reported, so a first
    // run skips the look (one Redis round trip less on every resume).
    const ranBefore = job.attemptsMade > 0 || job.stalledCounter > 0;
    if (ranBefore && (await reported(worker, job))) return null;
    const attempt = job.attemptsMade + 1;
    const output = (await handler({ ...continuationOf(data), attempt })) ?? null;
    await report(worker, job, completions, {
      v: data.v,
      resume_id: data.resume_id,
      run_id: data.run_id,
      generation: data.generation,
      thread: data.thread,
      type: data.type,
      attempt,
      output,
    });
    return output;
  };

  /** The Workers of shard `shard`: one per handler, on that shard's `handler-<name>` queues. */
  const shardWorkers = (shard: number): Array<Worker<HandlerJob>> => {
    const keys = deployment.forShard(shard);
    return names.map((name) => {
      const handler = options.handlers[name] as ContinuationHandler;
      const worker: Worker<HandlerJob> = new Worker<HandlerJob>(
        handlerQueueName(name),
        (job) => run(worker, handler, keys.completions, job),
        {
          connection,
          prefix: keys.queuePrefix,
          concurrency: options.concurrency ?? 8,
          lockDuration,
          stalledInterval: lockDuration,
          settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, backoffMs) },
        },
      );
      worker.on('error', () => undefined); // connection blips; BullMQ retries
      return worker;
    });
  };

  // Every shard the gateway recorded (ASKGATE_SHARDS; none recorded: one). A gateway may raise the count while this
  // worker runs: it looks again every `shardsRefreshMs` and starts working the new shards' queues.
  const workers: Array<Worker<HandlerJob>> = [];
  let shards = 0;
  const grow = async (): Promise<void> => {
    const recorded = Math.min((await readShards(connection, deployment)).shards, MAX_RECORDED_SHARDS);
    for (; shards < recorded; shards++) workers.push(...shardWorkers(shards));
  };
  try {
    await grow();
    await Promise.all(workers.map((w) => w.waitUntilReady()));
  } catch (error) {
    await Promise.all(workers.map((w) => w.close()));
    await connections.close();
    throw error;
  }
  let growing: Promise<void> = Promise.resolve();
  const refresh = setInterval(() => {
    growing = growing.then(grow).catch(() => undefined); // Redis away: the next look tries again
  }, options.shardsRefreshMs ?? 10_000);
  refresh.unref();
  return {
    async close() {
      clearInterval(refresh);
      await growing;
      await Promise.all(workers.map((w) => w.close()));
      await legacyCompleted?.close();
      await connections.close();
    },
  };
}
