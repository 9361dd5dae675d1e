import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../store/redis/connections.js';
import type { BridgeJob, ConfirmationHandlers, ConfirmationJobs, FailedBridgeJob } from '../confirmations/jobs.js';
import type { RetryLadder } from '../confirmations/ladder.js';
import type { Logger } from '../observability/logger.js';

/**
 * Confirmations' job port (`src/confirmations/jobs.ts`) on BullMQ, under the store's queue prefix (shard 0's):
 *
 * | queue       | one job per                          | consumed by    |
 * |-------------|--------------------------------------|----------------|
 * | `confirm`   | accepted signed event (the bridge)   | askgate worker |
 * | `reconcile` | scheduled reconcile run (one scheduler, fixed id `reconcile`) | askgate worker |
 *
 * A bridge job holds the event's confirmation from the moment the ingress accepted it, so a restart loses
 * nothing; its id derives from the event id, so a second enqueue of one event is a no-op while the job is kept.
 */
export const CONFIRM_QUEUE = 'confirm';
export const RECONCILE_QUEUE = 'reconcile';
/** The fixed id of the one reconcile scheduler, whatever the number of workers that upsert it. */
export const RECONCILE_SCHEDULER = 'reconcile';

const KEEP_FAILED_SECONDS = 30 * 86_400;

export function bridgeJobId(provider: string, eventId: string): string {
  return `bridge-${provider}-${Buffer.from(eventId).toString('base64url')}`;
}

/** A bridge step worth another try: BullMQ retries a job whose processor throws anything but UnrecoverableError. */
class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}

export interface BullConfirmationJobsOptions {
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  /** The bridge's retry ladder (`BRIDGE_LADDER`; a test passes a shorter base). */
  ladder: RetryLadder;
}

/** A failed bridge job as an operator sees it; the callback URL (a live ticket) is not shown. */
function failedView(job: Job<BridgeJob>): FailedBridgeJob {
  return {
    job: job.id ?? '',
    provider: job.data.provider,
    event: job.data.eventId,
    session: job.data.confirmation.session,
    reference: job.data.confirmation.reference,
    reason: job.failedReason,
    attempts: job.attemptsMade,
    received_at: job.data.receivedAt,
    failed_at: job.finishedOn === undefined ? null : new Date(job.finishedOn).toISOString(),
  };
}

export class BullConfirmationJobs implements ConfirmationJobs {
  private readonly confirm: Queue<BridgeJob>;
  private readonly reconcile: Queue;
  private workers: Worker[] = [];

  constructor(private readonly options: BullConfirmationJobsOptions) {
    const { connection, prefix } = options;
    this.confirm = new Queue<BridgeJob>(CONFIRM_QUEUE, { connection, prefix });
    this.reconcile = new Queue(RECONCILE_QUEUE, { connection, prefix });
  }

  async enqueue(data: BridgeJob): Promise<void> {
    await this.confirm.add('bridge', data, {
      jobId: bridgeJobId(data.provider, data.eventId),
      attempts: 1 + this.options.ladder.retries,
      backoff: { type: 'bridge' },
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: KEEP_FAILED_SECONDS },
    });
  }

  async listFailed(limit = 100): Promise<FailedBridgeJob[]> {
    const jobs = (await this.confirm.getFailed(0, limit - 1)) as Job<BridgeJob>[];
    return jobs.map(failedView);
  }

  async retry(jobId: string): Promise<boolean> {
    const job = await this.confirm.getJob(jobId);
    if (job === undefined || !(await job.isFailed())) return false;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  async schedule(everySeconds: number | null): Promise<void> {
    if (everySeconds === null) {
      await this.reconcile.removeJobScheduler(RECONCILE_SCHEDULER);
      return;
    }
    // One run at a time across every worker: a run that outlasts the interval (a long lookback, paced answers) holds
    // the next tick's job back rather than letting a second worker start one beside it.
    await this.reconcile.setGlobalConcurrency(1);
    await this.reconcile.upsertJobScheduler(
      RECONCILE_SCHEDULER,
      { every: everySeconds * 1000 },
      { name: 'reconcile', opts: { removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } } },
    );
  }

  consume(handlers: ConfirmationHandlers): void {
    const { connection, prefix, logger, ladder } = this.options;
    const bridge = new Worker<BridgeJob>(
      CONFIRM_QUEUE,
      async (job) => {
        const step = await handlers.bridge(job.data);
        if (step.kind === 'done') return;
        // A verdict no retry changes (the door's 400, 401, 403, 404, the pin, a decision other than confirmed).
        if (step.kind === 'fail') throw new UnrecoverableError(step.reason);
        throw new RetryLater(step.reason);
      },
      {
        connection,
        prefix,
        concurrency: 8,
        settings: { backoffStrategy: (attemptsMade: number) => ladder.delayMs(attemptsMade) },
      },
    );
    bridge.on('failed', (job, err) => {
      const final = job === undefined || err instanceof UnrecoverableError || job.attemptsMade >= 1 + ladder.retries;
      logger[final ? 'error' : 'warn'](
        { job: job?.id, session: job?.data.confirmation.session, err: err.message },
        final ? 'confirmation bridge failed; kept as a failed job for an operator' : 'confirmation bridge retrying',
      );
      if (final && job !== undefined)
        void handlers
          .bridgeFailed(failedView(job))
          .catch((raise: unknown) =>
            logger.error(
              { job: job.id, err: raise instanceof Error ? raise.message : String(raise) },
              'could not raise a signal',
            ),
          );
    });
    // One run at a time per worker, and one in all (the queue's global concurrency, set with the schedule); the
    // scheduler makes one job per tick however many workers there are.
    const reconciler = new Worker(RECONCILE_QUEUE, () => handlers.reconcile(), {
      connection,
      prefix,
      concurrency: 1,
      lockDuration: 60_000,
    });
    reconciler.on('failed', (_job, err) => logger.error({ err: err.message }, 'scheduled reconcile run failed'));
    this.workers = [bridge, reconciler];
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all([this.confirm.close(), this.reconcile.close()]);
  }
}
