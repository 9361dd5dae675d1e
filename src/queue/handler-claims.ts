import { Job } from 'bullmq';
import { AskgateError } from '../core/errors.js';
import type { Logger } from '../observability/logger.js';
import type {
  ClaimedContinuation,
  ClaimRequest,
  FailOutcome,
  HandlerClaims,
  LeaseRefusal,
  LeaseResult,
} from '../runs/handler-claims.js';
import type { Keys } from '../store/keys.js';
import type { RedisClient } from '../store/redis/connections.js';
import { runReport } from '../store/redis/scripts/index.js';
import { postsReply } from '../runs/completion.js';
import type { CompletionJob, HandlerJob } from '../runs/job-protocol.js';
import type { HandlerArrivals } from './handler-arrivals.js';
import { attemptOf, HandlerFailure, parseLeaseId, Tap, type Waiter } from './handler-tap.js';
import { handlerQueueName } from './queues.js';

export interface BullHandlerClaimsOptions {
  /** The process's BullMQ connection: each tap's Worker uses it, and duplicates it once for its blocking reads. */
  connection: RedisClient;
  /** Every shard's keys, shard 0 first: a handler's continuations of one identity live in one queue per shard. */
  shardKeys: readonly Keys[];
  /** A lease's default length, and how often lapsed leases are looked for, ms (ASKGATE_RESUME_LOCK_MS). */
  lockMs: number;
  /** The first retry delay after a failure, ms, doubling (ASKGATE_RESUME_BACKOFF_MS); a fail may name its own. */
  backoffMs: number;
  /** How long a run hash is kept after its last write, ms (a completion recorded in the report keeps it this long). */
  runRetentionMs: number;
  logger: Logger;
  /** The most taps (queues being claimed from) open at once; an idle one is closed to make room. Default 256. */
  maxTaps?: number;
  /** A tap nobody claimed through for this long is closed, ms. Default 300000. */
  idleMs?: number;
  /** Handler jobs this process adds: the tap of such a job's queue takes it at once when a claimer waits there. */
  arrivals?: HandlerArrivals;
  /** Has the next command on `connection` leave at once (RedisConnections.sendNextQueueCommandAtOnce): a take ahead. */
  sendNextAtOnce?: () => void;
}

/**
 * The continuation doors' port on BullMQ (src/runs/handler-claims.ts): a handler's continuations wait in the queue
 * `handler-<name>~<identity>` of their run's shard (queues.ts), a claim takes one by BullMQ's manual processing with
 * the lease id as the lock token, complete records the report (and the mark that keeps it from running again) in one
 * script under the lease (report-5.lua: the run's completion itself when no chat reply comes first, else the report
 * appended to the completions stream) and then completes the job, fail moves it to failed (BullMQ retries it with
 * the continuations' backoff), extend extends the lock.
 */
export class BullHandlerClaims implements HandlerClaims {
  private readonly taps = new Map<string, Tap>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: BullHandlerClaimsOptions) {
    const idleMs = options.idleMs ?? 300_000;
    this.sweeper = setInterval(() => this.closeIdle(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
    options.arrivals?.listen((shard, queueName) => {
      if (!this.closed) this.taps.get(`${shard}/${queueName}`)?.takeAhead();
    });
  }

  /**
   * The tap of one queue, opened on first use. It looks for lapsed leases as often as the shorter of the gateway's
   * lock and the lease its first claim asked for (at least every second), so a worker's short lease is re-offered
   * soon after it lapses.
   */
  private tap(identity: string, handler: string, shard: number, leaseMs: number | null = null): Tap {
    const keys = this.options.shardKeys[shard];
    if (keys === undefined) throw new Error(`shard ${shard} is beyond the configured shards`);
    const queueName = handlerQueueName(handler, identity);
    const key = `${shard}/${queueName}`;
    let tap = this.taps.get(key);
    if (tap === undefined) {
      if (this.taps.size >= (this.options.maxTaps ?? 256) && !this.closeOldestIdle())
        throw new AskgateError(
          'store_unavailable',
          'this gateway is serving as many handler queues as it opens at once; claim again shortly.',
        );
      const stalledMs = Math.max(1000, Math.min(this.options.lockMs, leaseMs ?? this.options.lockMs));
      tap = new Tap(handler, shard, queueName, keys.queuePrefix, stalledMs, this.options);
      this.taps.set(key, tap);
    }
    tap.lastUsed = Date.now();
    return tap;
  }

  private closeOldestIdle(): boolean {
    let oldest: [string, Tap] | null = null;
    for (const entry of this.taps)
      if (entry[1].idle && (oldest === null || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    if (oldest === null) return false;
    this.taps.delete(oldest[0]);
    void oldest[1].close();
    return true;
  }

  private closeIdle(idleMs: number): void {
    const before = Date.now() - idleMs;
    for (const [key, tap] of this.taps) {
      tap.forgetLapsed(this.options.lockMs);
      if (tap.idle && tap.lastUsed < before) {
        this.taps.delete(key);
        void tap.close();
      }
    }
  }

  claim(request: ClaimRequest): Promise<ClaimedContinuation | null> {
    if (this.closed || request.signal.aborted) return Promise.resolve(null);
    const taps = request.handlers.flatMap((handler) =>
      this.options.shardKeys.map((_, shard) => this.tap(request.identity, handler, shard, request.leaseMs)),
    );
    return new Promise((resolve) => {
      const waiter: Waiter = {
        request,
        settled: false,
        settle: (claimed) => {
          waiter.settled = true;
          clearTimeout(timer);
          request.signal.removeEventListener('abort', abort);
          for (const tap of taps) tap.remove(waiter);
          resolve(claimed);
        },
      };
      const abort = (): void => {
        if (!waiter.settled) waiter.settle(null);
      };
      const timer = setTimeout(abort, request.waitMs);
      request.signal.addEventListener('abort', abort, { once: true });
      for (const tap of taps) tap.add(waiter);
    });
  }

  /** The job a lease names, in the asker's own queue, and the tap it is held through; a refusal when there is none. */
  private async held(
    identity: string,
    resumeId: string,
    leaseId: string,
  ): Promise<{ tap: Tap; job: Job<HandlerJob> } | LeaseRefusal> {
    const lease = parseLeaseId(leaseId);
    if (lease === null || lease.shard >= this.options.shardKeys.length) return 'lease_expired';
    const tap = this.tap(identity, lease.handler, lease.shard);
    const mine = tap.handedOut.get(leaseId);
    if (mine !== undefined && mine.job.id === resumeId) return { tap, job: mine.job };
    const job = await Job.fromId<HandlerJob>(tap.worker, resumeId);
    if (job === undefined) return 'not_found';
    if (await tap.reported(job)) return 'already_completed';
    const lock = await this.options.connection.get(`${tap.worker.toKey(resumeId)}:lock`);
    return lock === leaseId ? { tap, job } : 'lease_expired';
  }

  async complete(identity: string, resumeId: string, leaseId: string, output: unknown): Promise<LeaseResult<null>> {
    const held = await this.held(identity, resumeId, leaseId);
    if (typeof held === 'string') return { ok: false, refusal: held };
    const { tap, job } = held;
    const data = job.data;
    const report: CompletionJob = {
      v: data.v,
      resume_id: data.resume_id,
      run_id: data.run_id,
      generation: data.generation,
      thread: data.thread,
      type: data.type,
      attempt: attemptOf(job),
      output: output ?? null,
    };
    const keys = this.options.shardKeys[tap.shard] as Keys;
    // A park's continuation with no chat reply to post first (recordCompletion's order) completes its run in the
    // report's own step: no stream entry, no second round trip, nothing left for a worker to record. A job goes to its
    // run's shard, so the run hash shares the job's hash tag.
    const inPlace = report.generation > 0 && !postsReply(report);
    const code = await runReport(
      this.options.connection,
      tap.worker.toKey(resumeId),
      inPlace
        ? {
            completions: keys.completions,
            run: {
              key: keys.run(report.run_id),
              readyRuns: keys.readyRuns,
              runId: report.run_id,
              generation: report.generation,
              attempt: report.attempt,
              retentionMs: this.options.runRetentionMs,
            },
          }
        : { completions: keys.completions, run: null },
      inPlace ? '' : JSON.stringify(report),
      leaseId,
    );
    if (code !== -1) tap.handedOut.delete(leaseId);
    if (code === -2) return { ok: false, refusal: 'not_found' };
    if (code === 0) return { ok: false, refusal: 'already_completed' };
    if (code === -1) return { ok: false, refusal: 'lease_expired' };
    // Recorded: the job may finish now, and only now. (Sent beside the report, the finish can overtake it: a report
    // script Redis does not hold yet is sent again as EVAL after the NOSCRIPT, by which time the finish has released
    // the lock the report checks, and the completion is lost.) Should the finish fail (the lease lapsed in between),
    // the mark keeps the continuation from running again: the next take finds it reported and finishes it.
    await job
      .moveToCompleted(null, leaseId, false)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error instanceof Error ? error.message : String(error), job: resumeId },
          'a reported handler job did not finish; it is finished when next taken',
        ),
      );
    return { ok: true, value: null };
  }

  async fail(
    identity: string,
    resumeId: string,
    leaseId: string,
    reason: string,
    retryBaseMs?: number,
  ): Promise<LeaseResult<FailOutcome>> {
    const held = await this.held(identity, resumeId, leaseId);
    if (typeof held === 'string') return { ok: false, refusal: held };
    const { tap, job } = held;
    try {
      await job.moveToFailed(new HandlerFailure(reason, retryBaseMs), leaseId, false);
    } catch {
      return { ok: false, refusal: 'lease_expired' };
    }
    tap.handedOut.delete(leaseId);
    if (job.finishedOn !== undefined) return { ok: true, value: { status: 'failed' } };
    return { ok: true, value: { status: 'retrying', retryAt: Date.now() + (job.delay ?? 0) } };
  }

  async extend(identity: string, resumeId: string, leaseId: string, leaseMs: number): Promise<LeaseResult<number>> {
    const held = await this.held(identity, resumeId, leaseId);
    if (typeof held === 'string') return { ok: false, refusal: held };
    const extended = await held.job.extendLock(leaseId, leaseMs);
    if (Number(extended) !== 1) return { ok: false, refusal: 'lease_expired' };
    const mine = held.tap.handedOut.get(leaseId);
    if (mine !== undefined) mine.until = Date.now() + leaseMs;
    return { ok: true, value: Date.now() + leaseMs };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const taps = [...this.taps.values()];
    this.taps.clear();
    await Promise.all(taps.map((tap) => tap.close()));
  }
}
