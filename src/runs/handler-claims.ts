import type { ContinuationPayload, ConversationTurnPayload } from './continuation.js';
export { HANDLER_NAME } from './job-bus.js';

/**
 * How handler workers take continuations over HTTP (docs/doors.md, "Continuations"): a worker claims the next due
 * continuation of its identity's runs under a lease, and reports its end — complete, fail — or lengthens the lease.
 * The doors (src/doors/continuations.ts) speak only this port; the job bus implements it (src/queue/handler-claims.ts).
 *
 * Exactly once: a continuation completes once. A lease that lapses (its worker died or went silent) is offered again
 * to the next claimer; a complete under a lapsed lease, or a second complete, is refused with an outcome saying so.
 */

/** A claim: who asks, for which handlers, how long it may wait for one to fall due, and how long the lease is. */
export interface ClaimRequest {
  /** The token identity: only continuations of runs it parked (or of routes it serves) are offered. */
  identity: string;
  /** The handler names the worker runs, 1..MAX_CLAIM_HANDLERS. */
  handlers: readonly string[];
  /** How long to wait for a continuation to fall due, ms; 0 looks once. */
  waitMs: number;
  /** The lease's length, ms; null: the gateway's own (ASKGATE_RESUME_LOCK_MS). */
  leaseMs: number | null;
  /** Aborted when the asker went away: the claim ends at once, taking nothing. */
  signal: AbortSignal;
}

/** A continuation held under a lease. */
export interface ClaimedContinuation {
  resumeId: string;
  handler: string;
  /** Names the lease in complete, fail and extend. Opaque. */
  leaseId: string;
  /** Epoch ms: unless extended by then, the continuation is offered to another worker. */
  leaseExpiresAt: number;
  /** 1 on the first run; one more per retry or re-offer. */
  attempt: number;
  /** What the handler receives (without `attempt`). */
  body: ContinuationPayload | ConversationTurnPayload;
  /** Set when the body's state is kept elsewhere under this reference (the job carried it, not the state). */
  checkpointRef?: string;
}

/** Why a lease operation was refused. */
export type LeaseRefusal =
  /** No continuation of this identity under that id and lease's handler. */
  | 'not_found'
  /** The lease lapsed (or was never this one): the continuation is offered, or was given, to another worker. */
  | 'lease_expired'
  /** The continuation completed already; nothing changes. */
  | 'already_completed';

export type LeaseResult<T> = { ok: true; value: T } | { ok: false; refusal: LeaseRefusal };

/** What a failure did: the continuation runs again at `retryAt` (epoch ms), or its retries are used up. */
export type FailOutcome = { status: 'retrying'; retryAt: number } | { status: 'failed' };

/** The most handler names one claim may list. */
export const MAX_CLAIM_HANDLERS = 20;

export interface HandlerClaims {
  /** The next due continuation for the identity under a new lease, or null when none fell due within the wait. */
  claim(request: ClaimRequest): Promise<ClaimedContinuation | null>;
  /** Records the handler's output as the continuation's completion (once), and finishes it. */
  complete(identity: string, resumeId: string, leaseId: string, output: unknown): Promise<LeaseResult<null>>;
  /** Fails this attempt: it runs again after the backoff (first delay `retryBaseMs` when given). */
  fail(
    identity: string,
    resumeId: string,
    leaseId: string,
    reason: string,
    retryBaseMs?: number,
  ): Promise<LeaseResult<FailOutcome>>;
  /** Lengthens the lease to `leaseMs` from now; the new expiry, epoch ms. */
  extend(identity: string, resumeId: string, leaseId: string, leaseMs: number): Promise<LeaseResult<number>>;
  close(): Promise<void>;
}
