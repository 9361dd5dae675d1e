import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { turnThread, type ContinuationPayload, type ConversationTurnPayload } from '../park/continuation.js';
import {
  HANDLER_NAME,
  REPLY_QUEUE,
  addReply,
  backoffDelay,
  handlerQueueName,
  type ReplyJobData,
} from '../queue/queues.js';
import { DEFAULT_KEY_PREFIX, Keys } from '../store/keys.js';
import { RUN_ATTEMPT, RUN_COMPLETE } from '../store/redis/scripts/run-transition.js';
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
  /** The gateway's Redis, `redis://...`. Required. */
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
  /** The gateway's LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES: the run's retention after completing. Default 10080. */
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
 * The guarantee: a continuation that completed never runs again. Completion is recorded in Redis atomically (the
 * run turns `resumed` or `killed`) right after the handler returns and before the job completes, and every run of
 * a job checks that record first. A worker that dies while a handler runs leaves the job locked until
 * `lockDurationMs` passes; BullMQ's stalled-job check then runs it once more, on a live worker, with the same
 * `resume_id` and `attempt` + 1. Handler side effects outside askgate should therefore be idempotent on `resume_id`.
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
  const keys = new Keys(options.prefix ?? DEFAULT_KEY_PREFIX);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const backoffMs = options.backoffMs ?? 1000;
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined); // reconnects are BullMQ's; failures surface on the jobs
  connection.defineCommand('askgateRunComplete', { lua: RUN_COMPLETE, numberOfKeys: 2 });
  connection.defineCommand('askgateRunAttempt', { lua: RUN_ATTEMPT, numberOfKeys: 1 });
  // defineCommand adds the methods at run time; ioredis cannot type them.
  const client = connection as Redis & {
    askgateRunComplete(...args: Array<string | number>): Promise<number>;
    askgateRunAttempt(...args: Array<string | number>): Promise<[number, string?]>;
  };
  const retentionMs = (options.retentionMinutes ?? 10_080) * 60_000;

  let replies: Queue<ReplyJobData> | null = null;
  /** Hands a chat-reached run's output to the gateway's reply job (it maps it by the route and posts it). */
  const reply = async (data: ReplyJobData): Promise<void> => {
    replies ??= new Queue<ReplyJobData>(REPLY_QUEUE, { connection, prefix: keys.queuePrefix });
    await addReply(replies, data);
  };

  const run = async (
    handler: ContinuationHandler,
    job: Job<ContinuationPayload | ConversationTurnPayload>,
  ): Promise<unknown> => {
    const payload = job.data;
    if (payload.type === 'conversation.turn') {
      // The immediate answer to a chat turn; its reply job id (generation 0) makes a rerun's second answer a no-op.
      const output = await handler({ ...payload, attempt: job.attemptsMade + 1 });
      await reply({ runId: payload.run_id, generation: 0, thread: turnThread(payload), output: output ?? null });
      return output ?? null;
    }
    const runKey = keys.run(payload.run_id);
    const generation = generationOf(payload.resume_id);
    const due = payload.type === 'run.resumed' ? 'ready' : 'dying';
    // One step checks the park is still due and counts the attempt; completed already (or a newer park): the
    // continuation must not run again.
    const [isDue, thread] = await client.askgateRunAttempt(runKey, generation, due, retentionMs);
    if (isDue !== 1) return null;
    const output = await handler({ ...payload, attempt: job.attemptsMade + 1 });
    // A run reached over chat: its reply is queued before completion is recorded, so a crash between the two
    // reruns the handler and the fixed reply id drops the second enqueue, instead of losing the reply.
    if (thread && payload.type === 'run.resumed') {
      await reply({
        runId: payload.run_id,
        generation,
        thread: JSON.parse(thread) as ReplyJobData['thread'],
        output: output ?? null,
      });
    }
    await client.askgateRunComplete(runKey, keys.readyRuns, generation, payload.run_id, retentionMs, Date.now());
    return output ?? null;
  };

  const workers = names.map(
    (name) =>
      new Worker<ContinuationPayload | ConversationTurnPayload>(
        handlerQueueName(name),
        (job) => run(options.handlers[name] as ContinuationHandler, job),
        {
          connection,
          prefix: keys.queuePrefix,
          concurrency: options.concurrency ?? 8,
          lockDuration,
          stalledInterval: lockDuration,
          settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, backoffMs) },
        },
      ),
  );
  for (const w of workers) w.on('error', () => undefined); // connection blips; BullMQ retries
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await replies?.close();
      connection.disconnect();
    },
  };
}

/** The park generation a resume id names (`resume-<run>-<generation>`). */
function generationOf(resumeId: string): number {
  return Number(resumeId.slice(resumeId.lastIndexOf('-') + 1));
}
