import type { Job, Worker } from 'bullmq';
import type { Logger } from '../observability/logger.js';
import type { ConversationTurnPayload } from '../runs/continuation.js';
import type { JobBus, ReplyJobData, RunJobHandlers } from '../runs/job-bus.js';
import type { RedisClient } from '../store/redis/connections.js';
import { CompletionStream } from './completion-stream.js';
import type { HandlerArrivals } from './handler-arrivals.js';
import { queuePrefixes, type QueueShards } from './queue-shards.js';
import {
  REPLY_QUEUE,
  RESUME_QUEUE,
  ResumeProducer,
  type ResumeJobData,
  TURN_QUEUE,
  type WorkerBasis,
  workerOptions,
  workersPerShard,
} from './queues.js';

export interface BullJobBusOptions {
  /** The process's BullMQ connection (RedisConnections.queue()). */
  connection: RedisClient;
  shards: QueueShards;
  /** How long a silent worker keeps its job before another takes it over, ms. */
  lockMs: number;
  /** The first retry delay, ms (doubling, jittered). */
  backoffMs: number;
  logger: Logger;
  /** The completions stream's connections: the command connection, and a blocking reader per shard. */
  completions: { command: RedisClient; reader(shard: number): RedisClient };
  /** Told of each handler job added here, so this process's claims take it without waiting for a wake-up. */
  arrivals?: HandlerArrivals;
  /** Has the next command on `connection` leave at once, then runs `afterSent` (ResumeProducer). */
  sendNextAtOnce?: (afterSent?: () => void) => void;
}

/**
 * The run lifecycle's JobBus on BullMQ: the enqueue side is ResumeProducer (queues.ts: a job goes to its run's
 * shard's queue under its deterministic id); `work` starts, in a process that runs workers, one BullMQ Worker per
 * queue and shard for resume (concurrency 16), turn (16) and reply (8) jobs and a completions-stream consumer per
 * shard (completion-stream.ts), each handing its jobs to the lifecycle's handlers.
 */
export class BullJobBus extends ResumeProducer implements JobBus {
  private workers: Worker[] = [];
  private completions: Array<{ close(): Promise<void> }> = [];

  constructor(private readonly options: BullJobBusOptions) {
    super(options.connection, options.shards, options.arrivals ?? null, options.sendNextAtOnce);
  }

  work(handlers: RunJobHandlers): void {
    if (this.workers.length > 0) return;
    const { options } = this;
    const basis: WorkerBasis = {
      connection: options.connection,
      queuePrefixes: queuePrefixes(options.shards),
      lockMs: options.lockMs,
      backoffMs: options.backoffMs,
    };
    const resume = workersPerShard<ResumeJobData>(
      basis,
      RESUME_QUEUE,
      // Every resume job is added with its deterministic id (the continuation's resume_id).
      (job) => handlers.resume({ ...job.data, jobId: job.id as string }),
      workerOptions(basis, 16),
    );
    this.watch(resume, 'continuation failed; retrying with backoff', 'resume worker error');
    const { chat } = handlers;
    if (chat !== undefined) {
      // A platform that said when to come back (a 429's retry_after) is retried then, not on the doubling backoff.
      const retry = (err: Error | undefined) => chat.retryAfterMs(err);
      const turns = workersPerShard<ConversationTurnPayload>(
        basis,
        TURN_QUEUE,
        (job: Job<ConversationTurnPayload>) => chat.turn(job.data),
        workerOptions(basis, 16, retry),
      );
      // Replies share one concurrency budget per process and shard; the channel's own pacing spaces them per chat.
      const replies = workersPerShard<ReplyJobData>(
        basis,
        REPLY_QUEUE,
        (job: Job<ReplyJobData>) => chat.reply(job.data),
        workerOptions(basis, 8, retry),
      );
      this.watch([...turns, ...replies], 'chat job failed; retrying with backoff', 'chat worker error');
    }
    // Handler completions that post a chat reply first, from each shard's stream (a continuation door appends the
    // report to the stream of the shard its job came from; every other completion is recorded by the report itself).
    const record = (report: Parameters<RunJobHandlers['completion']>[0]) => handlers.completion(report);
    this.completions = options.shards.keys.map(
      (keys, shard) =>
        new CompletionStream({
          command: options.completions.command,
          reader: options.completions.reader(shard),
          stream: keys.completions,
          record,
          logger: options.logger,
          lockMs: options.lockMs,
        }),
    );
  }

  private watch(workers: Worker[], failed: string, error: string): void {
    for (const worker of workers) {
      worker.on('failed', (job, err) =>
        this.options.logger.warn({ job: job?.id, attempt: job?.attemptsMade, err: err.message }, failed),
      );
      worker.on('error', (err) => this.options.logger.warn({ err: err.message }, error));
    }
    this.workers.push(...workers);
  }

  override async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all(this.completions.map((c) => c.close()));
    await super.close();
  }
}
