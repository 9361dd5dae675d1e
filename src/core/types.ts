/**
 * The core vocabulary of askgate: what an interaction is, what an answer looks like, and the events a store emits.
 * Nothing here knows about HTTP, Redis or any chat platform.
 */

export const ANSWER_FORMATS = ['text', 'select', 'confirm', 'form', 'external', 'review'] as const;
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

/** What a person may do with a reviewed action: run it, run it with other args, refuse it, or answer in words. */
export const REVIEW_DECISIONS = ['approve', 'edit', 'reject', 'respond'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/** The action an agent proposes for review (a tool call): its name, its arguments and what it does. */
export interface ReviewAction {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** A review's answer: one decision, with the edited args (edit) or the person's words (reject, respond). */
export type ReviewAnswer =
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; message?: string }
  | { decision: 'respond'; message: string };

export const STATUSES = ['pending', 'answered', 'expired', 'cancelled'] as const;
export type InteractionStatus = (typeof STATUSES)[number];

/**
 * Where an answer came from: `inbox` (the answer door, the inbox page, the CLI), `callback` (the callback door) or
 * the name of the channel that offered it. Channels name themselves; the core knows no platform.
 */
export type Surface = string;

/** The surfaces of the gateway's own doors. */
export const INBOX_SURFACE = 'inbox';
export const CALLBACK_SURFACE = 'callback';

export const MEDIA_KINDS = ['image', 'document', 'video', 'audio', 'link'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export interface MediaItem {
  kind: MediaKind;
  url: string;
  caption?: string;
}

/** The message an answering reply quoted. */
export interface ReplyTo {
  message_id: string;
  status: string;
  text: string;
}

/** A JSON Schema document; askgate treats it as data and hands it to ajv. */
export type JsonSchema = { [key: string]: unknown };

/** The verifier bound to an external question at ask time, e.g. `{"name": "stripe", "secret_env": "STRIPE_WHSEC"}`. */
export interface VerifierBinding {
  name: string;
  [option: string]: unknown;
}

/** The run that parks on an async ask. */
export interface RunSpec {
  run_id: string;
  kind: 'tool' | 'agent';
  parent_run_id: string | null;
  state: unknown;
  resume: { webhook: string } | { handler: string };
}

/** `remind`: nudge the question's surfaces every `every` seconds while it is pending, at most `max` times. */
export interface RemindSpec {
  every: number;
  max: number;
}

/** One `escalate` step: deliver the question to one more surface when it is still pending `after` seconds in. */
export interface EscalationStep {
  after: number;
  channel: string;
  recipient: string | null;
}

/** The resolution of an interaction: what a caller reads back. */
export interface AskResult {
  answer: unknown;
  reply_to: ReplyTo | null;
  params: Record<string, string> | null;
  answered_by: string;
  answered_at: string;
  surface: Surface;
}

/** One place a question is sent: a registered channel and the address on it (chat id, user id, phone). */
export interface SurfaceTarget {
  channel: string;
  recipient: string | null;
}

/**
 * A surface as the store keeps it: the target and, once sent, the channel's references of the question message
 * there (the same map a single-channel ask keeps in `StoredInteraction.delivery`).
 */
export interface StoredSurface extends SurfaceTarget {
  delivery: Record<string, string> | null;
}

/** A quorum on a confirm question with approvers: `approve` yes votes answer true, `reject` no votes answer false. */
export interface Quorum {
  approve: number;
  reject: number;
}

/** One approver's counted vote on a quorum question. */
export interface Vote {
  by: string;
  answer: boolean;
  surface: Surface;
  at: string;
}

/** The marker answer of an ask that expired with `on_expiry: "resume"`. */
export const EXPIRED_MARKER = Object.freeze({ $interaction: 'expired' });

/**
 * The interaction record as the doors show it. Optional fields that do not apply are `null`, never absent,
 * so clients can rely on the shape.
 */
export interface InteractionRecord {
  id: string;
  status: InteractionStatus;
  question: string;
  answer_format: AnswerFormat;
  choices: string[] | null;
  schema: JsonSchema | null;
  group_id: string | null;
  channel: string | null;
  recipient: string | null;
  mode: 'sync' | 'async';
  created_at: string;
  deadline_at: string;
  asked_by: string;
  media: MediaItem[] | null;
  link: boolean;
  verifier: { name: string } | null;
  to: 'person' | 'caller';
  payload: unknown;
  on_expiry: 'kill' | 'resume';
  run_id: string | null;
  result: AskResult | null;
  resolved_at: string | null;
  /** Present only in the response to the ask itself; the store keeps a hash of the ticket. */
  callback_url?: string;
  /** Present on a question delivered on a chat channel: each delivery, kept current from the platform's receipts. */
  deliveries?: Delivery[];
  /**
   * Present, and true, once every chat delivery of a pending question has failed: nobody saw it on a channel (an
   * answer on another surface, the inbox, still wins).
   */
  undeliverable?: true;
  /** Present on a question asked with `remind`: the schedule of its reminders. */
  remind?: RemindSpec;
  /** Present on a question asked with `escalate`: its escalation steps, in the order given. */
  escalate?: EscalationStep[];
  /** Present only in the response to an ask through a confirmation preset: the provider's page for the party. */
  confirmation_url?: string;
  /**
   * Present on a question with more than one surface (asked with `deliver`, or escalated): every surface, the first
   * being the one `channel` and `recipient` name.
   */
  deliver?: SurfaceTarget[];
  /** Present when the ask named who may answer: token identities and `<channel>:<user id>`. */
  approvers?: string[];
  /** Present on a quorum question. */
  quorum?: Quorum;
  /** Present on a quorum question once someone voted: every counted vote, oldest first. */
  votes?: Vote[];
  /** Present on a review: the action proposed (its `args` checked against `schema` when there is one). */
  action?: ReviewAction;
  /** Present on a review: the decisions the person may take, in the order they are offered. */
  decisions?: ReviewDecision[];
}

/** Where a delivery stands: forward only (sent → delivered → read); `failed` is final. */
export type DeliveryState = 'sent' | 'delivered' | 'read' | 'failed';

/** One delivery of a question, as the record shows it. */
export interface Delivery {
  channel: string;
  recipient: string | null;
  message_id: string;
  status: DeliveryState;
  /** The platform's code and words, when it failed. */
  error?: { code: string; message: string };
}

/**
 * A platform's receipt for a delivered message: its own status word (`status`, kept as the platform says it), where
 * that puts the delivery (`state`), and the word's place in the platform's order (`rank`), so a receipt that arrives
 * late or twice never moves the delivery back.
 */
export interface DeliveryReceipt {
  status: string;
  state: DeliveryState;
  rank: number;
  /** The platform's time of the status, as it sent it (epoch seconds for Meta); absent when it sent none. */
  at?: string;
  error?: { code: string; message: string };
}

/** What a receipt did: moved the delivery, changed nothing (late, repeated, after failed), or failed it just now. */
export type ReceiptOutcome = 'moved' | 'unchanged' | 'failed' | 'unknown';

/**
 * What the store keeps beside the record: facts the doors never show (the ticket hash, the verifier binding's
 * options, the channel's message references).
 */
export interface StoredInteraction extends InteractionRecord {
  ticket_hash: string | null;
  verifier_binding: VerifierBinding | null;
  /**
   * Per-channel references of the delivered question message on the first surface (`channel`, `recipient`), e.g.
   * `{"chat_id": "1", "message_id": "42"}`.
   */
  delivery: Record<string, string> | null;
  /**
   * The question's surfaces beyond the first (`deliver[1..]`, and any added later by `addSurface`), each with its
   * own references. Absent on a question with one surface or none, so a plain ask costs nothing more (see
   * `core/surfaces.ts` for the one view of all of them).
   */
  extra_surfaces?: StoredSurface[];
}

export type InteractionEventType =
  | 'interaction.created'
  | 'interaction.answered'
  | 'interaction.expired'
  | 'interaction.cancelled'
  /** A platform reported, after the send, that a delivery of a pending question failed (the record says which). */
  | 'interaction.delivery_failed';

export interface InteractionEvent {
  type: InteractionEventType;
  record: InteractionRecord;
}

/** Who is calling: resolved from the bearer token. */
export interface Identity {
  name: string;
  scopes: ReadonlySet<Scope>;
  webhookSecret: string | null;
}

/** `admin` writes presets and runs reconciliation: an operator's scope, never an agent's. */
export type Scope = 'read' | 'write' | 'answer' | 'admin';
