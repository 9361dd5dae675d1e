/**
 * The JSON bodies of the interaction doors (docs/doors.md) as the SDK reads and writes them: the record, its parts
 * and the stream's event names. The SDK's own copy of the wire shapes, one file per concern, so the published
 * package depends on nothing of the gateway; the gateway's doors produce exactly these bodies.
 */

/** `answer_format` of an ask and its record. */
export type AnswerFormat = 'text' | 'select' | 'confirm' | 'form' | 'external' | 'review';

/** What a person may do with a reviewed action. */
export type ReviewDecision = 'approve' | 'edit' | 'reject' | 'respond';

/** The action an agent proposes for review (a tool call). */
export interface ReviewAction {
  /** 1..200 characters. */
  name: string;
  /** The proposed arguments. */
  args: Record<string, unknown>;
  /** What the action does, at most 4096 characters. */
  description?: string;
}

/** A review's answer: one decision, with the edited args (edit) or the person's words (reject, respond). */
export type ReviewAnswer =
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; message?: string }
  | { decision: 'respond'; message: string };

/** `status` of a record. */
export type InteractionStatus = 'pending' | 'answered' | 'expired' | 'cancelled';

/** One display-only media item of an inbox question. */
export interface MediaItem {
  kind: 'image' | 'document' | 'video' | 'audio' | 'link';
  url: string;
  caption?: string;
}

/** The message an answering reply quoted. */
export interface ReplyTo {
  message_id: string;
  status: string;
  text: string;
}

/** A JSON Schema document. */
export type JsonSchema = { [key: string]: unknown };

/** `result` of an answered record. */
export interface AskResult {
  answer: unknown;
  reply_to: ReplyTo | null;
  params: Record<string, string> | null;
  answered_by: string;
  answered_at: string;
  /** `inbox`, `callback`, or the name of the channel the answer came on. */
  surface: string;
}

/** One surface of a question: a registered channel and the address on it. */
export interface SurfaceTarget {
  channel: string;
  recipient: string | null;
}

/** `quorum` of a confirm question with approvers. */
export interface Quorum {
  approve: number;
  reject: number;
}

/** One counted vote of a quorum question. */
export interface Vote {
  by: string;
  answer: boolean;
  surface: string;
  at: string;
}

/** One delivery of a question on a chat channel, kept current from the platform's receipts. */
export interface Delivery {
  channel: string;
  recipient: string | null;
  message_id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The platform's code and words, when it failed. */
  error?: { code: string; message: string };
}

/** `remind` as the record shows it. */
export interface RemindSchedule {
  every: number;
  max: number;
}

/** One `escalate` step as the record shows it. */
export interface EscalationStep {
  after: number;
  channel: string;
  recipient: string | null;
}

/**
 * The interaction record as the doors show it. Optional fields that do not apply are `null`, never absent; the
 * members marked optional appear only where they say.
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
  /** Only in the response to the ask itself, when a callback URL was minted. */
  callback_url?: string;
  /** On a question delivered on a chat channel: each delivery. */
  deliveries?: Delivery[];
  /** True once every chat delivery of a pending question has failed. */
  undeliverable?: true;
  /** On a question asked with `remind`. */
  remind?: RemindSchedule;
  /** On a question asked with `escalate`, in the order given. */
  escalate?: EscalationStep[];
  /** Only in the response to an ask through a confirmation preset: the provider's page for the party. */
  confirmation_url?: string;
  /** On a question with more than one surface, the first being the one `channel` and `recipient` name. */
  deliver?: SurfaceTarget[];
  /** When the ask named who may answer. */
  approvers?: string[];
  /** On a quorum question. */
  quorum?: Quorum;
  /** On a quorum question once someone voted, oldest first. */
  votes?: Vote[];
  /** On a review: the proposed action. */
  action?: ReviewAction;
  /** On a review: the decisions offered, in order. */
  decisions?: ReviewDecision[];
}

/** The `event:` names of the live stream (`GET /api/interactions/stream`). */
export type InteractionEventType =
  | 'interaction.created'
  | 'interaction.answered'
  | 'interaction.expired'
  | 'interaction.cancelled'
  | 'interaction.delivery_failed';
