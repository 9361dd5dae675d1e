import type { CompletedConfirmation } from './providers/types.js';

/**
 * The port confirmations keep their durable work behind: bridge jobs (one per accepted signed event, kept until
 * delivered or failed), the failed-job listing an operator works from, and the one repeatable reconcile job.
 * Confirmations own this interface; `src/queue/confirmation-jobs.ts` implements it on BullMQ, and the composition
 * root hands it in (null on the in-memory store, which could not keep an accepted event across a restart).
 */

/** What a bridge job holds: the accepted event's confirmation, from the moment the ingress accepted it. */
export interface BridgeJob {
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

/** What one run of a bridge job came to: done, worth another try on the ladder, or failed for good. */
export type BridgeStep = { kind: 'done' } | { kind: 'retry'; reason: string } | { kind: 'fail'; reason: string };

/** The work a worker process does for confirmations. */
export interface ConfirmationHandlers {
  /** Delivers one bridge job's confirmation once. */
  bridge(job: BridgeJob): Promise<BridgeStep>;
  /** One scheduled reconcile run; rejects when it ended with failures (the job is then marked failed). */
  reconcile(): Promise<unknown>;
  /** A bridge job ended failed (a verdict, or the ladder exhausted): kept for an operator, who must hear of it. */
  bridgeFailed(job: FailedBridgeJob): Promise<void>;
}

export interface ConfirmationJobs {
  /** Keeps an accepted event as a bridge job until it is delivered; a second enqueue of one event is a no-op. */
  enqueue(job: BridgeJob): Promise<void>;
  /** The failed bridge jobs, newest first, kept 30 days. */
  listFailed(limit?: number): Promise<FailedBridgeJob[]>;
  /** Runs a failed job again with a fresh ladder; false when no failed job has that id. */
  retry(jobId: string): Promise<boolean>;
  /** Installs (or, with null, removes) the one repeatable reconcile job, whatever the number of workers. */
  schedule(everySeconds: number | null): Promise<void>;
  /**
   * Starts this process's consumers: bridge jobs (retried on the ladder the adapter was built with, normally
   * `BRIDGE_LADDER`), and reconcile runs, one at a time across every worker.
   */
  consume(handlers: ConfirmationHandlers): void;
  close(): Promise<void>;
}
