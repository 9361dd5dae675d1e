import { randomBytes } from 'node:crypto';
import { Job, Worker } from 'bullmq';
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
import { type CompletionJob, continuationOf, type HandlerJob, REPORTED_FIELD } from '../runs/job-protocol.js';
import { backoffDelay, CONTINUATION_ATTEMPTS, handlerQueueName } from './queues.js';

export interface BullHandlerClaimsOptions {
  /** The process's BullMQ connection: each tap's Worker uses it, and duplicates it once for its blocking reads. */
  connection: RedisClient;
  /** Every shard's keys, shard 0 first: a handler's continuations of one identity live in one queue per shard. */
  shardKeys: readonly Keys[];
  /** A lease's default length, and how often lapsed leases are looked for, ms (ASKGATE_RESUME_LOCK_MS). */
  lockMs: number;
  /** The first retry delay after a failure, ms, doubling (ASKGATE_RESUME_BACKOFF_MS); a fail may name its own. */
  backoffMs: number;
  logger: Logger;
  /** The most taps (queues being claimed from) open at once; an idle one is closed to make room. Default 256. */
  maxTaps?: number;
  /** A tap nobody claimed through for this long is closed, ms. Default 300000. */
  idleMs?: number;
}

/** A claimer waiting for a continuation: settled once, by the first tap with a job, its timeout, or its abort. */
interface Waiter {
  readonly request: ClaimRequest;
  settled: boolean;
  settle(claimed: ClaimedContinuation | null): void;
}

/** A failure carrying the first retry delay the worker asked for (read by the taps' backoff strategy). */
class HandlerFailure extends Error {
  constructor(
    message: string,
    readonly retryBaseMs: number | undefined,
  ) {
    super(message);
    this.name = 'HandlerFailure';
  }
}

/** Which run of its continuation a job is: 1, and one more per failed attempt and per lapsed lease (BullMQ's stall). */
function attemptOf(job: Job<HandlerJob>): number {
  return job.attemptsMade + job.stalledCounter + 1;
}

/** `<shard>.<handler>.<random>`: the lease names the queue its job is in; the random part is BullMQ's lock token. */
function newLeaseId(shard: number, handler: string): string {
  return `${shard}.${handler}.${randomBytes(16).toString('base64url')}`;
}

function parseLeaseId(leaseId: string): { shard: number; handler: string } | null {
  const match = /^(\d{1,3})\.([A-Za-z0-9_.-]{1,100})\.[A-Za-z0-9_-]{22}$/.exec(leaseId);
  if (match === null) return null;
  return { shard: Number(match[1]), handler: match[2] as string };
}

/**
 * One queue being claimed from (one handler, one identity, one shard): a BullMQ Worker processing jobs manually
 * (`getNextJob` with the lease id as the lock token), shared by every claim waiting on that queue. While anyone
 * waits, one loop blocks on the queue (BullMQ's blocking read on its own connection, woken by the add of a job) and
 * hands each job it takes to the longest-waiting claimer. So a tap costs one Redis connection however many claims
 * wait on it, and a due job reaches a waiting claimer at once. Its Worker also runs BullMQ's stalled-job check,
 * which offers the job of a lapsed lease again.
 */
class Tap {
  readonly worker: Worker<HandlerJob>;
  /**
   * The jobs this tap handed out, by lease id, until reported, failed or long lapsed: a complete, fail or extend
   * reaching the gateway that took the job needs no read of the job, its mark or its lock first (the report, fail
   * and extend scripts check the lease themselves). A lease taken through another gateway is read from Redis.
   */
  readonly handedOut = new Map<string, { job: Job<HandlerJob>; until: number }>();
  private readonly waiters: Waiter[] = [];
  private looping = false;
  private closed = false;
  lastUsed = Date.now();

  constructor(
    readonly handler: string,
    readonly shard: number,
    queueName: string,
    prefix: string,
    stalledMs: number,
    private readonly options: BullHandlerClaimsOptions,
  ) {
    this.worker = new Worker<HandlerJob>(queueName, null, {
      connection: options.connection,
      prefix,
      autorun: false,
      lockDuration: options.lockMs,
      stalledInterval: stalledMs,
      // A lapsed lease is offered again however often it lapses, as a failed attempt is retried.
      maxStalledCount: CONTINUATION_ATTEMPTS,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
          backoffDelay(
            attemptsMade,
            err instanceof HandlerFailure ? (err.retryBaseMs ?? options.backoffMs) : options.backoffMs,
          ),
      },
    });
    this.worker.on('error', (err) =>
      options.logger.warn({ err: err.message, queue: queueName }, 'handler claim queue error; BullMQ retries'),
    );
    this.worker.startStalledCheckTimer().catch(() => undefined);
  }

  get idle(): boolean {
    return this.waiters.length === 0 && this.handedOut.size === 0;
  }

  add(waiter: Waiter): void {
    this.waiters.push(waiter);
    this.lastUsed = Date.now();
    if (!this.looping) void this.loop();
  }

  remove(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      while (!this.closed && this.waiters.length > 0) {
        const leaseId = newLeaseId(this.shard, this.handler);
        let job: Job<HandlerJob> | undefined;
        try {
          // Blocks until a job is due or BullMQ's drain delay (5 s) passes; then the loop looks at its waiters again.
          job = await this.worker.getNextJob(leaseId, { block: true });
        } catch (error) {
          if (this.closed) return;
          this.options.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'taking a handler job failed; trying again in 1 s',
          );
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (job !== undefined) await this.offer(job, leaseId);
      }
    } finally {
      this.looping = false;
    }
  }

  /** Hands `job`, taken under `leaseId`, to the longest-waiting claimer, or puts it back when nobody waits any more. */
  private async offer(job: Job<HandlerJob>, leaseId: string): Promise<void> {
    try {
      // A job that ran before may have completed already (its worker's lease lapsed after the report): finish it.
      const ranBefore = job.attemptsMade > 0 || job.stalledCounter > 0;
      if (ranBefore && (await this.reported(job))) {
        await job.moveToCompleted(null, leaseId, false);
        return;
      }
      const waiter = this.waiters.find((w) => !w.settled);
      if (waiter === undefined) {
        await job.moveToWait(leaseId);
        return;
      }
      waiter.settled = true;
      const leaseMs = waiter.request.leaseMs ?? this.options.lockMs;
      if (leaseMs !== this.options.lockMs) await job.extendLock(leaseId, leaseMs);
      this.handedOut.set(leaseId, { job, until: Date.now() + leaseMs });
      waiter.settle({
        resumeId: job.id ?? job.data.resume_id,
        handler: this.handler,
        leaseId,
        leaseExpiresAt: Date.now() + leaseMs,
        attempt: attemptOf(job),
        body: continuationOf(job.data),
        ...(job.data.checkpoint_ref === undefined ? {} : { checkpointRef: job.data.checkpoint_ref }),
      });
    } catch (error) {
      // The job stays active under a lease nobody holds: the stalled check offers it again once the lease lapses.
      this.options.logger.warn(
        { err: error instanceof Error ? error.message : String(error), job: job.id },
        'offering a handler job failed; it is offered again when its lease lapses',
      );
    }
  }

  /** Forgets handed-out jobs whose lease lapsed `graceMs` ago: a report under such a lease is refused anyway. */
  forgetLapsed(graceMs: number): void {
    const before = Date.now() - graceMs;
    for (const [leaseId, held] of this.handedOut) if (held.until < before) this.handedOut.delete(leaseId);
  }

  async reported(job: Job<HandlerJob>): Promise<boolean> {
    return (await this.options.connection.hexists(this.worker.toKey(job.id as string), REPORTED_FIELD)) === 1;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters) waiter.settle(null);
    this.waiters.length = 0;
    await this.worker.close(true);
  }
}

/**
 * The continuation doors' port on BullMQ (src/runs/handler-claims.ts): a handler's continuations wait in the queue
 * `handler-<name>~<identity>` of their run's shard (queues.ts), a claim takes one by BullMQ's manual processing with
 * the lease id as the lock token, complete records the report (and the mark that keeps it from running again) in one
 * script under the lease (report-3.lua) and then completes the job, fail moves it to failed (BullMQ retries it with
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
    const completions = (this.options.shardKeys[tap.shard] as Keys).completions;
    const code = await runReport(
      this.options.connection,
      tap.worker.toKey(resumeId),
      completions,
      JSON.stringify(report),
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
