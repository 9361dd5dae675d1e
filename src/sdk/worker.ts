import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { ContinuationPayload, ConversationTurnPayload } from '../park/continuation.js';
import {
  COMPLETED_QUEUE,
  JOB_PROTOCOL_VERSION,
  continuationOf,
  unsupportedVersion,
  type CompletionJob,
  type HandlerJob,
} from '../queue/job-protocol.js';
import { HANDLER_NAME, JOB_DEFAULTS, backoffDelay, handlerQueueName } from '../queue/queues.js';
import { DEFAULT_KEY_PREFIX } from '../store/keys.js';
import { RedisConnections } from '../store/redis/connections.js';
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
  /** Continuations run at once per handler. Default 8. */
  concurrency?: number;
  /**
   * How long this worker may go silent (killed, frozen) before its running continuation is taken for abandoned and
   * run again on another worker, ms. Default 30000.
   */
  lockDurationMs?: number;
  /** First retry delay after a handler throws, ms (doubles per attempt, with jitter, capped at 15 min). Default 1000. */
  backoffMs?: number;
  /**
   * Ignored; kept so existing callers still type-check. The gateway applies its own retention when it records the
   * completion this worker reports.
   * @deprecated
   */
  retentionMinutes?: number;
}

/** A running continuation worker. */
export interface ContinuationWorker {
  /** Waits for running continuations, then stops. */
  close(): Promise<void>;
}

/**
 * Runs registered continuations for parked runs, in any number of processes beside any number of gateways.
 *
 * It speaks the gateway's job protocol (docs/sdk.md, "Job protocol"; src/queue/job-protocol.ts), version 1: it takes
 * jobs from `handler-<name>` and reports each handler's return value to the gateway's `completed` queue; the
 * gateway records the completion and posts any chat reply. It reads no run and runs none of the gateway's scripts.
 *
 * The guarantee: a continuation that completed never runs again. Its completion report is added right after the
 * handler returns and before the job completes, under the continuation's id, and every run of a job checks for
 * that report first. A worker that dies while a handler runs leaves the job locked until `lockDurationMs` passes;
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
  const prefix = connections.keys.queuePrefix;
  const completed = new Queue<CompletionJob>(COMPLETED_QUEUE, { connection, prefix });

  const run = async (handler: ContinuationHandler, job: Job<HandlerJob>): Promise<unknown> => {
    const unsupported = unsupportedVersion(job.data, 'this SDK worker');
    if (unsupported !== null) throw new UnrecoverableError(unsupported);
    const data = job.data;
    // Reported already (a rerun after a crash between the report and the job's completion): never run it again. Only
    // a job that ran before — a retry, or one taken back from a stalled worker — can have been reported, so a first
    // run skips the look (one Redis round trip less on every resume). A second job under the same id cannot appear
    // while the first is kept (a day once completed), as BullMQ ignores an add under a kept job's id.
    const ranBefore = job.attemptsMade > 0 || job.stalledCounter > 0;
    if (ranBefore && (await completed.getJobState(data.resume_id)) !== 'unknown') return null;
    const attempt = job.attemptsMade + 1;
    const output = (await handler({ ...continuationOf(data), attempt })) ?? null;
    const report: CompletionJob = {
      v: JOB_PROTOCOL_VERSION,
      resume_id: data.resume_id,
      run_id: data.run_id,
      generation: data.generation,
      thread: data.thread,
      type: data.type,
      attempt,
      output,
    };
    // A fixed id: a second report of one continuation is a no-op.
    await completed.add('completed', report, { ...JOB_DEFAULTS, jobId: data.resume_id });
    return output;
  };

  const workers = names.map(
    (name) =>
      new Worker<HandlerJob>(handlerQueueName(name), (job) => run(options.handlers[name] as ContinuationHandler, job), {
        connection,
        prefix,
        concurrency: options.concurrency ?? 8,
        lockDuration,
        stalledInterval: lockDuration,
        settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, backoffMs) },
      }),
  );
  for (const w of workers) w.on('error', () => undefined); // connection blips; BullMQ retries
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await completed.close();
      await connections.close();
    },
  };
}
