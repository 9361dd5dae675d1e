import { type Job, Worker } from 'bullmq';
import { poolRandomBytes } from '../core/random-pool.js';
import type { ClaimedContinuation, ClaimRequest } from '../runs/handler-claims.js';
import { continuationOf, type HandlerJob, REPORTED_FIELD } from '../runs/job-protocol.js';
import type { BullHandlerClaimsOptions } from './handler-claims.js';
import { backoffDelay, CONTINUATION_ATTEMPTS } from './queues.js';

/** The most takes a tap runs beside its loop while jobs queue up (Tap.widen). */
const EXTRA_TAKERS = 3;

type Taken = { job: Job<HandlerJob> | undefined; leaseId: string };

/** A claimer waiting for a continuation: settled once, by the first tap with a job, its timeout, or its abort. */
export interface Waiter {
  readonly request: ClaimRequest;
  settled: boolean;
  settle(claimed: ClaimedContinuation | null): void;
}

/** A failure carrying the first retry delay the worker asked for (read by the taps' backoff strategy). */
export class HandlerFailure extends Error {
  constructor(
    message: string,
    readonly retryBaseMs: number | undefined,
  ) {
    super(message);
    this.name = 'HandlerFailure';
  }
}

/** Which run of its continuation a job is: 1, and one more per failed attempt and per lapsed lease (BullMQ's stall). */
export function attemptOf(job: Job<HandlerJob>): number {
  return job.attemptsMade + job.stalledCounter + 1;
}

/** `<shard>.<handler>.<random>`: the lease names the queue its job is in; the random part is BullMQ's lock token. */
export function newLeaseId(shard: number, handler: string): string {
  return `${shard}.${handler}.${poolRandomBytes(16).toString('base64url')}`;
}

export function parseLeaseId(leaseId: string): { shard: number; handler: string } | null {
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
export class Tap {
  readonly worker: Worker<HandlerJob>;
  /**
   * The jobs this tap handed out, by lease id, until reported, failed or long lapsed: a complete, fail or extend
   * reaching the gateway that took the job needs no read of the job, its mark or its lock first (the report, fail
   * and extend scripts check the lease themselves). A lease taken through another gateway is read from Redis.
   */
  readonly handedOut = new Map<string, { job: Job<HandlerJob>; until: number }>();
  private readonly waiters: Waiter[] = [];
  private looping = false;
  private takesInFlight = 0;
  /** The loop's take is blocked on the queue: it comes back only when a job is added or its wait ends. */
  private blocked = false;
  private extraTakers = 0;
  private lastTakeFound = false;
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
        // The last take found a job, so BullMQ takes this one without blocking: jobs may be queueing behind it.
        const backlog = this.lastTakeFound;
        let taken: Taken;
        try {
          // Blocks until a job is due or BullMQ's drain delay (5 s) passes; then the loop looks at its waiters again.
          taken = await this.take(true);
        } catch (error) {
          if (this.closed) return;
          this.options.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'taking a handler job failed; trying again in 1 s',
          );
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (taken.job === undefined) continue;
        if (backlog) this.widen();
        await this.offer(taken.job, taken.leaseId);
      }
    } finally {
      this.looping = false;
    }
  }

  /** One take under a new lease id; blocking waits for a job to fall due, else BullMQ takes without waiting. */
  private async take(block: boolean): Promise<Taken> {
    const leaseId = newLeaseId(this.shard, this.handler);
    this.takesInFlight++;
    if (block) this.blocked = true;
    try {
      const job = await this.worker.getNextJob(leaseId, { block });
      this.lastTakeFound = job !== undefined;
      return { job, leaseId };
    } finally {
      this.takesInFlight--;
      if (block) this.blocked = false;
    }
  }

  /**
   * Claimers not yet served by a take in flight; `blockedServes` false leaves out the loop's blocked take, which
   * serves nobody until something wakes it.
   */
  private unserved(blockedServes: boolean): number {
    let open = 0;
    for (const waiter of this.waiters) if (!waiter.settled) open++;
    return open - this.takesInFlight + (this.blocked && !blockedServes ? 1 : 0);
  }

  /**
   * This process just added a job to the queue (handler-arrivals.ts): while a claimer waits with the loop blocked,
   * one take beside the loop goes now, behind the add on the same connection, instead of after the blocked read
   * wakes. One take for one job: should it find nothing (another take was quicker), the loop's read takes the job as
   * before; should more jobs be queued, the loop's next take finds one and widens. A second take here would come
   * back empty on every resume while other claimers wait (a worker's idle slots), costing Redis a script each time.
   */
  takeAhead(): void {
    if (this.closed || this.extraTakers >= EXTRA_TAKERS || this.unserved(false) === 0) return;
    // The take follows the add at once too, rather than at the end of this turn (the connection's writes are
    // coalesced per turn): the claimer waits on it.
    this.options.sendNextAtOnce?.();
    this.startExtraTaker(false, 1);
  }

  /**
   * Jobs queue up behind the loop's takes when continuations fall due faster than one take per round trip: then up
   * to {@link EXTRA_TAKERS} more takes run beside the loop, each without blocking, while claimers wait unserved, and
   * each stops at the first take that finds the queue empty. Their takes share the loop's connection, so they go out
   * in one write. A queue that holds at most one job at a time never starts one (no take comes back empty for them).
   */
  private widen(): void {
    while (this.extraTakers < EXTRA_TAKERS && this.unserved(true) > 0) this.startExtraTaker(true);
  }

  /**
   * One taker beside the loop (widen, takeAhead): at most `takes` takes, each while claimers wait unserved
   * (`blockedServes` as in {@link unserved}).
   */
  private startExtraTaker(blockedServes: boolean, takes = Number.POSITIVE_INFINITY): void {
    this.extraTakers++;
    void this.extraTaker(blockedServes, takes).finally(() => {
      this.extraTakers--;
    });
  }

  private async extraTaker(blockedServes: boolean, takes: number): Promise<void> {
    for (let left = takes; left > 0 && !this.closed && this.unserved(blockedServes) > 0; left--) {
      let taken: Taken;
      try {
        taken = await this.take(false);
      } catch {
        return; // the loop's own take reports a failing queue and retries
      }
      if (taken.job === undefined) return;
      await this.offer(taken.job, taken.leaseId);
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
