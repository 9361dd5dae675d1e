import type { AuditEvent, NewAuditEvent } from './audit.js';
import type {
  AskResult,
  DeliveryReceipt,
  InteractionEvent,
  InteractionStatus,
  ReceiptOutcome,
  StoredInteraction,
  SurfaceTarget,
  Vote,
} from './types.js';

/** What decides where a new ask lives (`Store.newInteractionId`). */
export interface AskPlacement {
  /** The run an async ask parks (its asks live with it), else null. */
  runId: string | null;
  /** The ask's group (a group stays together), else null. */
  groupId: string | null;
}

/** How a pending interaction ends. */
export interface Resolution {
  status: Exclude<InteractionStatus, 'pending'>;
  /** The answer for `answered`; the expiry marker result for an expired `on_expiry: "resume"` ask; else null. */
  result: AskResult | null;
  /** RFC 3339 moment of the resolution. */
  resolvedAt: string;
}

export type ResolveOutcome =
  /**
   * This call moved the interaction out of `pending`; `record` is the resolved record. `run` is set when the same
   * atomic step settled the parked run the ask belongs to: `ready` (its last ask resolved) or `kill`; the caller
   * enqueues the run's one resume job (see docs/parks.md).
   */
  | { kind: 'resolved'; record: StoredInteraction; run?: SettledRun }
  /** Someone else resolved it first (or it was never pending); nothing changed. */
  | { kind: 'not_pending'; record: StoredInteraction }
  /** No such interaction (never existed, or pruned after the idle TTL). */
  | { kind: 'not_found' };

/**
 * What an answer is, for the claim that checks it itself (`Store.claimAnswer`): the facts the simple formats need,
 * worked out by the caller, which knows JavaScript's string semantics.
 */
export interface AnswerFacts {
  /** A boolean: fits confirm. */
  boolean: boolean;
  /** A string of 1 to 16,384 characters: fits text. */
  text: boolean;
  /** The answer when it is a well-formed string (a select compares it with the choices), else null. */
  choice: string | null;
}

export type AnswerClaimOutcome =
  | ResolveOutcome
  /** Pending, but the answer does not fit its text / confirm / select format; nothing changed. */
  | { kind: 'invalid'; record: StoredInteraction }
  /** Pending, but not checkable in the claim (deadline passed, ask to the caller, form, external); nothing changed. */
  | { kind: 'unchecked'; record: StoredInteraction };

/** What adding a surface to a question did (`Store.addSurface`). */
export type AddSurfaceOutcome =
  /** Recorded, and indexed by its recipient. */
  | 'added'
  /** The question already has that surface; nothing changed. */
  | 'duplicate'
  /** The question is no longer pending; nothing changed. */
  | 'not_pending'
  | 'not_found';

/** What a vote did (`Store.castVote`). */
export type VoteOutcome =
  /** The vote reached the quorum and resolved the question in the same step (as `resolve` does). */
  | ResolveOutcome
  /** Counted; the question stays pending. `record` carries every vote so far. */
  | { kind: 'voted'; record: StoredInteraction }
  /** This approver had voted already; nothing changed. */
  | { kind: 'already_voted'; record: StoredInteraction };

/** A parked run whose resume (or kill) became due in a resolve. */
export interface SettledRun {
  runId: string;
  /** How many times the run has parked; with the run id it names the one resume job of this park. */
  generation: number;
  verdict: 'ready' | 'kill';
  /**
   * For `ready`, when the store has them: the run hash's fields as the settling step left them, pieced values
   * joined (the table in src/store/redis/run-store.ts), so the resume job is built without reading the run again.
   */
  fields?: Record<string, string>;
}

export interface PendingPage {
  items: StoredInteraction[];
  nextCursor: string | null;
}

export interface PendingQuery {
  limit: number;
  /** Opaque cursor from a previous page; null for the first page. */
  cursor: string | null;
  /** Only interactions of this group. */
  groupId: string | null;
}

export interface FixedWindowHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Whole seconds until the window resets (at least 1). */
  resetInSeconds: number;
}

/**
 * The durable state of askgate, as the core needs it. Defined here so the arrow points store → core: the two
 * implementations in `src/store/` import this port and pass one contract suite (`test/store/contract.ts`):
 * `MemoryStore` (the embedded default, one process) and `RedisStore` (many processes on one Redis).
 *
 * Every transition is atomic: `create` writes the record, its pending-list entry and its deadline together;
 * `resolve` moves pending → answered | expired | cancelled exactly once however many callers race.
 * Events for every transition reach every subscriber in every process on the same store.
 */
export interface Store {
  readonly kind: 'memory' | 'redis';
  /** True when a record survives a process hop (another worker can read it): required for async parks. */
  readonly durable: boolean;

  /**
   * Optional: a fresh interaction id for an ask placed as `placement` says, for a store spread over shards (the id
   * names its shard, core/shard-ids.ts). A store without it takes the plain ids of `newInteractionId` (core/ids.ts).
   */
  newInteractionId?(placement: AskPlacement): Promise<string>;

  /** Writes a new pending interaction and emits `interaction.created`. */
  create(record: StoredInteraction): Promise<void>;

  get(id: string): Promise<StoredInteraction | null>;

  /**
   * The one atomic claim: when the interaction is pending, records the resolution, drops it from the pending list
   * and the deadline index, keeps it (and its ticket) readable for `idleTtlSeconds`, and emits the matching event.
   */
  resolve(id: string, resolution: Resolution): Promise<ResolveOutcome>;

  /**
   * Optional: the claim of an answer in one step with its check. When the record is pending, before its deadline,
   * not an ask to the caller, and text / confirm / select, the answer is checked against the stored format and
   * claimed exactly as `resolve` would (same guarantees, same event); otherwise nothing changes and the record is
   * returned (`invalid`, `unchecked`, `not_pending`) for the caller's full path. A store without it is read, then
   * resolved.
   */
  claimAnswer?(id: string, resolution: Resolution, facts: AnswerFacts): Promise<AnswerClaimOutcome>;

  /**
   * Records the channel's references of the delivered question message. When `delivery.ref` is present it is also
   * indexed (per the record's channel) for `findByDelivery`, for as long as the record itself lives.
   */
  setDelivery(id: string, delivery: Record<string, string>, surface?: SurfaceTarget): Promise<void>;

  /**
   * Adds a surface to a pending question in one atomic step (a `deliver` ask's further surfaces are written by
   * `create`; this is for a surface added later, e.g. an escalation): appended to `extra_surfaces`, its recipient
   * indexed for `pendingFor` at once. `setDelivery(id, refs, surface)` then records its message. Refused, changing
   * nothing, once the question resolved or when it already has that surface.
   */
  addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome>;

  /**
   * One approver's vote on a pending quorum question, counted and resolved in one atomic step with the claim: a
   * second vote by the same `vote.by` changes nothing (`already_voted`); otherwise the vote is appended to
   * `votes`, and when the yes votes reach `quorum.approve` (or the no votes `quorum.reject`) the question is
   * resolved with `resolution` exactly as `resolve` would (the deciding vote's answer is the outcome, so the
   * caller passes that vote's result). A question that is not pending is `not_pending`, unchanged.
   */
  castVote(id: string, vote: Vote, resolution: Resolution): Promise<VoteOutcome>;

  /**
   * The pending questions asked on `channel` of any of `recipients` (several spellings of one person, e.g. a number
   * with and without its `+`), oldest first, read from the recipient index — never a pass over the pending list.
   * Each record is the view of its surface on `channel` (core/surfaces.ts: `channel`, `recipient`, `delivery` are
   * that surface's), whichever of the question's surfaces it is.
   */
  pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]>;

  /**
   * Applies a platform's receipt to the delivery `ref` of interaction `id` in one atomic step (no read-then-write):
   * forward only by the receipt's rank, `failed` final; `moved` when it moved, `unchanged` for a late, repeated or
   * post-failure receipt, `unknown` when no such delivery exists. A receipt that fails the delivery of a pending
   * question emits `interaction.delivery_failed` (its record then says `undeliverable`) and returns `failed`.
   */
  recordReceipt(id: string, ref: string, receipt: DeliveryReceipt): Promise<ReceiptOutcome>;

  /**
   * The interaction whose delivered message has `ref` on `channel` (its `delivery.ref`), while it still resolves:
   * how a reply that quotes a question message finds the question. The record is the view of that surface
   * (core/surfaces.ts), whichever of the question's surfaces it is.
   */
  findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null>;

  /**
   * Appends one event to the interaction's audit trail, for an event that is not part of another transition (a
   * reminder sent, an answer refused). An event a transition causes is appended by that transition's own atomic
   * step instead (docs/audit.md): the stores' resolve, setDelivery and recordReceipt do. Concurrent appends keep
   * one gap-free trail. False when no such interaction (never existed, or pruned).
   */
  appendEvent(id: string, event: NewAuditEvent): Promise<boolean>;

  /**
   * The interaction's audit trail, oldest first, every event with its hash; null when no such interaction. Events
   * not sealed yet are sealed by this read (their hashes stored, compare-and-set), so a later edit of them shows
   * in verification. Throws when the stored trail was damaged beyond reading.
   */
  events(id: string): Promise<AuditEvent[] | null>;

  /** Pending interactions, oldest first; the cursor stays right while others are added and resolved between pages. */
  listPending(query: PendingQuery): Promise<PendingPage>;

  /** Atomically removes and returns up to `max` ids whose deadline is at or before `nowMs`; each id goes to one caller. */
  popDue(nowMs: number, max: number): Promise<string[]>;

  /**
   * Listens to every event on this store (from every process); returns the unsubscribe function. A store may start
   * listening only now (Redis: the events channel is subscribed while it has a listener); `eventsReady` tells when.
   */
  subscribe(listener: (event: InteractionEvent) => void): () => void;

  /** Resolves once every event from now on reaches the listeners subscribed so far (`store_unavailable` if it cannot). */
  eventsReady(): Promise<void>;

  /** Fixed-window counter shared by every process on the store (flood control). */
  hitWindow(key: string, windowSeconds: number): Promise<FixedWindowHit>;

  /**
   * Appends a new version of preset `name` (every write is kept); concurrent writers get distinct numbers.
   * Resolves with the new version's number.
   */
  appendPreset(name: string, entry: Omit<PresetVersion, 'version'>): Promise<number>;

  /** Every version of preset `name`, oldest first; empty when none was ever written. */
  presetVersions(name: string): Promise<PresetVersion[]>;

  /**
   * Claims `key` for `ttlMs`: true for the first caller, false while the claim is held (a seen-set, e.g. of
   * webhook event ids). Shared by every process on the store.
   */
  markSeen(key: string, ttlMs: number): Promise<boolean>;

  /** Drops a `markSeen` claim, when the work it guarded could not be handed on and must be accepted again. */
  unmarkSeen(key: string): Promise<void>;

  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;

  close(): Promise<void>;
}

/** One stored version of a preset: the body as written, who wrote it and when. Versions count from 1. */
export interface PresetVersion {
  version: number;
  body: Record<string, unknown>;
  written_by: string;
  written_at: string;
}

export interface StoreOptions {
  /** How long an answered, expired or cancelled interaction (and its ticket) still resolves. */
  idleTtlSeconds: number;
}
