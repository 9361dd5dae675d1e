import type { ReplyTo } from './interactions.js';

/**
 * The JSON bodies of the continuation doors (docs/doors.md, "Continuations") and the continuations they carry
 * (docs/parks.md), as the SDK's worker reads and writes them.
 */

/** What a resumed run reads for one ask: the same three values a sync asker reads. */
export interface ContinuationAskResult {
  answer: unknown;
  reply_to: ReplyTo | null;
  params: Record<string, string> | null;
}

/**
 * A park's continuation: `run.resumed` (a single park carries `interaction_id` and `ask_result`, a fan-out
 * `results` keyed by interaction id) or `run.killed` (with `killed_by`: the ask that expired or was cancelled, or
 * `run:<child>`).
 */
export interface ContinuationPayload {
  type: 'run.resumed' | 'run.killed';
  run_id: string;
  /** The identity the run resumes under: the one that parked it. */
  identity: string;
  kind: 'tool' | 'agent';
  /** The checkpoint state handed in at park time, unchanged. */
  state: unknown;
  /** Stable across reruns of this continuation: use it to make side effects idempotent. */
  resume_id: string;
  interaction_id?: string;
  ask_result?: ContinuationAskResult;
  results?: Record<string, ContinuationAskResult>;
  killed_by?: string | null;
}

/** A chat message that answered no question, for a route whose target is a handler (docs/parks.md, "Routes"). */
export interface ConversationTurnPayload {
  type: 'conversation.turn';
  /** Park under this run id to reply late into the same thread; deterministic per chat message. */
  run_id: string;
  identity: string;
  route: string;
  /** Stable across redeliveries of this turn: use it to make side effects idempotent. */
  resume_id: string;
  turn: {
    channel: string;
    /** The conversation and the message; `thread_id`, when present, is where replies go instead of under it. */
    thread: { recipient: string; message_id: string; thread_id?: string };
    text: string | null;
    /** The message the person quoted; null when none. */
    reply_to: ReplyTo | null;
    params: Record<string, string>;
    /** Who wrote it, as the channel names people (`telegram:@ada`). */
    from: string;
  };
}

/** The body of `POST /api/continuations/claim`. */
export interface ClaimBody {
  /** The handler names this worker runs, 1..20. */
  handlers: string[];
  /** Seconds to wait for one to fall due, 1..60; default 30. */
  wait?: number;
  /** The lease, ms, 1000..600000; default the gateway's ASKGATE_RESUME_LOCK_MS. */
  lease_ms?: number;
}

/** The 200 body of a claim (a 204 has none: nothing fell due within `wait`). */
export interface ClaimResponse {
  resume_id: string;
  handler: string;
  lease_id: string;
  /** RFC 3339: unless extended by then, the continuation is offered to another claim. */
  lease_expires_at: string;
  /** 1 on the first run. */
  attempt: number;
  /** What the handler receives. */
  continuation: (ContinuationPayload | ConversationTurnPayload) & { attempt: number };
}

/** The body of `POST /api/continuations/{resume_id}/complete`. */
export interface CompleteBody {
  lease_id: string;
  /** The handler's return value: the run's output (for a run reached over chat, the reply). Default null. */
  output?: unknown;
  /** Claim the next continuation in the same request, once this one is recorded: it comes back as `next`. */
  claim?: ClaimBody;
}

/** The 200 body of a complete; `next` only when the complete carried a `claim` (null: none fell due in `wait`). */
export interface CompleteResponse {
  status: 'completed';
  next?: ClaimResponse | null;
}

/** The body of `POST /api/continuations/{resume_id}/fail`. */
export interface FailBody {
  lease_id: string;
  /** Why the handler failed (kept up to 2000 characters). */
  error: string;
  /** The first retry delay, ms (doubling per attempt, with jitter); default the gateway's ASKGATE_RESUME_BACKOFF_MS. */
  retry_base_ms?: number;
}

/** The 200 body of a fail. */
export type FailResponse = { status: 'retrying'; retry_at: string } | { status: 'failed' };

/** The body of `POST /api/continuations/{resume_id}/extend`. */
export interface ExtendBody {
  lease_id: string;
  lease_ms: number;
}

/** The 200 body of an extend. */
export interface ExtendResponse {
  lease_expires_at: string;
}
