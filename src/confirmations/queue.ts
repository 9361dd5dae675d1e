import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../observability/logger.js';
import { BRIDGE_RETRIES, BridgeFailure, type BridgeSettings, postConfirmation, retryDelayMs } from './bridge.js';
import type { CompletedConfirmation } from './providers/types.js';

/**
 * The durable half of confirmations, on BullMQ under the store's queue prefix:
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

export interface BridgeJobData {
  provider: string;
  eventId: string;
  confirmation: CompletedConfirmation;
  receivedAt: string;
}

/** A bridge job that ran out of tries or met a final refusal; the callback URL (a live ticket) is not shown. */
export interface FailedBridgeJob {
  job: string;
  provider: string;
  event: string;
  session: string;
  reference: string;
  reason: string;
  attempts: number;
  received_at: string;
  failed_at: string | null;
}

const KEEP_FAILED_SECONDS = 30 * 86_400;

export function bridgeJobId(provider: string, eventId: string): string {
  return `bridge-${provider}-${Buffer.from(eventId).toString('base64url')}`;
}

/** The producer side: every process that serves the ingress or the operator doors. */
export class ConfirmQueues {
  readonly confirm: Queue<BridgeJobData>;
  readonly reconcile: Queue;

  constructor(connection: Redis | Cluster, prefix: string) {
    this.confirm = new Queue<BridgeJobData>(CONFIRM_QUEUE, { connection, prefix });
    this.reconcile = new Queue(RECONCILE_QUEUE, { connection, prefix });
  }

  async enqueue(data: BridgeJobData): Promise<void> {
    await this.confirm.add('bridge', data, {
      jobId: bridgeJobId(data.provider, data.eventId),
      attempts: 1 + BRIDGE_RETRIES,
      backoff: { type: 'bridge' },
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: KEEP_FAILED_SECONDS },
    });
  }

  async listFailed(limit = 100): Promise<FailedBridgeJob[]> {
    const jobs = (await this.confirm.getFailed(0, limit - 1)) as Job<BridgeJobData>[];
    return jobs.map((job) => ({
      job: job.id ?? '',
      provider: job.data.provider,
      event: job.data.eventId,
      session: job.data.confirmation.session,
      reference: job.data.confirmation.reference,
      reason: job.failedReason,
      attempts: job.attemptsMade,
      received_at: job.data.receivedAt,
      failed_at: job.finishedOn === undefined ? null : new Date(job.finishedOn).toISOString(),
    }));
  }

  /** Moves a failed job back to waiting, with a fresh ladder; false when no failed job has that id. */
  async retry(jobId: string): Promise<boolean> {
    const job = await this.confirm.getJob(jobId);
    if (job === undefined || !(await job.isFailed())) return false;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /** Installs (or, with null, removes) the one repeatable reconcile job. */
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

  async close(): Promise<void> {
    await Promise.all([this.confirm.close(), this.reconcile.close()]);
  }
}

export interface ConfirmWorkersOptions {
  connection: Redis | Cluster;
  prefix: string;
  settings: BridgeSettings;
  logger: Logger;
  /** One reconcile run with the configured lookback (src/confirmations/reconcile.ts). */
  reconcile: () => Promise<unknown>;
}

/** The consumer side, in every `askgate worker` (and `npm start`). */
export class ConfirmWorkers {
  private readonly bridge: Worker<BridgeJobData>;
  private readonly reconciler: Worker;

  constructor(options: ConfirmWorkersOptions) {
    const { logger } = options;
    this.bridge = new Worker<BridgeJobData>(
      CONFIRM_QUEUE,
      async (job) => {
        try {
          return await postConfirmation(job.data.confirmation, options.settings);
        } catch (err) {
          // A verdict no retry changes (400, 401, 403, 404, the SSRF pin, a decision other than confirmed): fail now.
          if (err instanceof BridgeFailure && !err.retryable) throw new UnrecoverableError(err.message);
          throw err;
        }
      },
      {
        connection: options.connection,
        prefix: options.prefix,
        concurrency: 8,
        settings: { backoffStrategy: (attemptsMade, _type, err) => retryDelayMs(attemptsMade, err) },
      },
    );
    this.bridge.on('failed', (job, err) => {
      const final = job === undefined || err instanceof UnrecoverableError || job.attemptsMade >= 1 + BRIDGE_RETRIES;
      logger[final ? 'error' : 'warn'](
        { job: job?.id, session: job?.data.confirmation.session, err: err.message },
        final ? 'confirmation bridge failed; kept as a failed job for an operator' : 'confirmation bridge retrying',
      );
    });
    // One run at a time per worker, and one in all (the queue's global concurrency, set with the schedule); the
    // scheduler makes one job per tick however many workers there are.
    this.reconciler = new Worker(RECONCILE_QUEUE, () => options.reconcile(), {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: 1,
      lockDuration: 60_000,
    });
    this.reconciler.on('failed', (_job, err) => logger.error({ err: err.message }, 'scheduled reconcile run failed'));
  }

  async close(): Promise<void> {
    await Promise.all([this.bridge.close(), this.reconciler.close()]);
  }
}
