import type {
  AnswerFormat,
  InteractionEventType,
  InteractionRecord,
  InteractionStatus,
  JsonSchema,
  MediaItem,
  ReplyTo,
  ReviewAction,
  ReviewAnswer,
  ReviewDecision,
} from './wire/interactions.js';

/**
 * The request and response shapes of the HTTP contract, as the SDK types them. Arrays are `readonly` so a body
 * written as a `const` literal (which `ask` infers) type-checks, and a `select` ask's answer is typed as the
 * union of its choices.
 */

/** The run that parks on an async ask (see docs/parks.md). */
export interface RunBody {
  run_id: string;
  /** Default `"tool"`. */
  kind?: 'tool' | 'agent';
  parent_run_id?: string;
  /** Opaque JSON checkpoint handed back on resume. */
  state?: unknown;
  resume: { readonly webhook: string } | { readonly handler: string };
}

/** Fields every ask may carry, whatever its format and mode. */
interface AskBase {
  /** 1..4096 characters. */
  question: string;
  /** Threads related questions; at most 200 characters. Default: none. */
  group_id?: string;
  /** A registered channel name; default: the inbox. */
  channel?: string;
  /** The channel address for this call (chat id, user id, phone). */
  recipient?: string;
  /** Instead of channel/recipient: the same question on 1..10 surfaces at once; the first answer wins. */
  deliver?: ReadonlyArray<{ readonly channel: string; readonly recipient: string }>;
  /** Who may answer: token identity names, or `<channel>:<user id>` ("slack:U0123"); anyone else is refused. */
  approvers?: readonly string[];
  /** Confirm only, with approvers: `approve` yes votes answer true, `reject` (default 1) no votes answer false. */
  quorum?: { readonly approve: number; readonly reject?: number };
  /** Display-only media, inbox only; at most 10 items. */
  media?: readonly MediaItem[];
  /** Also mint a callback URL for this ask. Default `false` (channel and external asks always get one). */
  link?: boolean;
  /** Default `"person"`; `"caller"` is always async. */
  to?: 'person' | 'caller';
  /** Any JSON; `to: "caller"` only. */
  payload?: unknown;
  /**
   * Nudge the question's surfaces again while it is pending: a reply in the question's thread every `every` seconds
   * (at least 60), at most `max` times (1..10). Needs a channel; a Redis-backed gateway (409 on the in-memory store).
   */
  remind?: RemindBody;
  /** Deliver to more surfaces when still pending `after` seconds from the ask; at most 5 steps, each before the deadline. */
  escalate?: readonly EscalationStepBody[];
}

/** `remind`: every ≥ 60 seconds, max 1..10 reminders. */
export interface RemindBody {
  every: number;
  max: number;
}

/** One `escalate` step: a registered channel and the recipient there, `after` seconds from the ask. */
export interface EscalationStepBody {
  after: number;
  channel: string;
  recipient?: string;
}

/** The per-format part of an ask body. */
export type AskFormatPart =
  | { answer_format: 'text' | 'confirm' }
  | { answer_format: 'select' /** 1..100 unique choices, each 1..200 characters. */; choices: readonly string[] }
  | { answer_format: 'form'; schema: JsonSchema }
  | {
      answer_format: 'external';
      /** Optional pin: the delivered payload must match it. */
      schema?: JsonSchema;
      /** Authenticates the callback, e.g. `{ name: "stripe" }`; forbidden with `channel`. */
      verifier?: { readonly name: string; readonly [option: string]: unknown };
    }
  | {
      answer_format: 'review';
      /** The action an agent proposes: name 1..200 characters, its args, a description of at most 4096. */
      action: {
        readonly name: string;
        readonly args: { readonly [key: string]: unknown };
        readonly description?: string;
      };
      /** The JSON Schema (type object) of `action.args`: an edit is checked against it; needed for edit on a channel. */
      schema?: JsonSchema;
      /** Default: approve, edit and reject with a schema; approve and reject without one. */
      decisions?: readonly ReviewDecision[];
    };

/** The timing part of a sync ask: it blocks until answered or `timeout` seconds pass. */
export interface SyncTiming {
  mode?: 'sync';
  /** Seconds > 0. Default: the gateway's `INTERACTIONS_DEFAULT_TIMEOUT_SECONDS` (300). */
  timeout?: number;
  expiry_at?: never;
}

/** The timing part of an async ask: it parks a run and returns at once. */
export interface AsyncTiming {
  mode: 'async';
  /** RFC 3339 date-time with an offset, inside the retention horizon. */
  expiry_at: string;
  /** Default `"kill"`. */
  on_expiry?: 'kill' | 'resume';
  run?: RunBody;
  timeout?: never;
}

export type SyncAskBody = AskBase & AskFormatPart & SyncTiming;
export type AsyncAskBody = AskBase & AskFormatPart & AsyncTiming;
/** The body of `POST /api/interactions`. */
export type AskBody = SyncAskBody | AsyncAskBody;

/** Every key of any member of the union `T`. */
type KeyOfAny<T> = T extends unknown ? keyof T : never;

/** The type of field `K` across the members of the union `T` that have it. */
type FieldOfAny<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** Every field name an ask body may carry. */
export type AskField = KeyOfAny<AskBody>;

/** The fields whose value is an object of known keys (for arrays, each item), with those keys. */
interface NestedAskFields {
  deliver: 'channel' | 'recipient';
  action: 'name' | 'args' | 'description';
  quorum: 'approve' | 'reject';
  remind: 'every' | 'max';
  escalate: 'after' | 'channel' | 'recipient';
  run: KeyOfAny<RunBody>;
}

/** `V` (an object, or an array of objects) with every key outside `Keys` typed `never`. */
type Closed<V, Keys extends PropertyKey> = V extends readonly (infer Item)[]
  ? readonly Closed<Item, Keys>[]
  : V extends object
    ? V & { [K in Exclude<keyof V, Keys>]: never }
    : V;

/**
 * A body `B` as `ask` accepts it: a field no ask body has (`answerFormat`, `groupId`), at the top or inside
 * `deliver`, `quorum`, `remind`, `escalate` and `run`, is typed `never`, so the compiler refuses it and names it.
 * `ask` infers its body's type to type the answer, and TypeScript skips its excess property check for an
 * inferred type: this puts the check back. (`schema`, `payload`, `state` and a verifier's options stay open JSON.)
 */
export type ExactAskBody<B> = B & { [K in Exclude<keyof B, AskField>]: never } & {
  [K in keyof B as K extends keyof NestedAskFields ? K : never]: K extends keyof NestedAskFields
    ? Closed<B[K], NestedAskFields[K]>
    : never;
};

/**
 * The fields a preset ask may pass (`askPreset`): any ask field, each optional, typed as in an ask body; a field
 * the preset fixes is refused by the gateway (400 `fixed_by_preset`), one it does not know by the compiler.
 */
export type PresetAskFields = { readonly [K in AskField]?: FieldOfAny<AskBody, K> };

/** The typed answer of an ask body: boolean for confirm, the choice union for select, an object for form. */
export type AnswerOf<B> = B extends { answer_format: 'confirm' }
  ? boolean
  : B extends { answer_format: 'select'; choices: readonly (infer C)[] }
    ? C
    : B extends { answer_format: 'text' }
      ? string
      : B extends { answer_format: 'form' }
        ? Record<string, unknown>
        : B extends { answer_format: 'review' }
          ? ReviewAnswer
          : unknown;

/** What a sync ask returns: the typed answer beside the message it quoted and the channel's own entries. */
export interface AskAnswer<T = unknown> {
  answer: T;
  /** The message the answering reply quoted; null when none, or not over a channel. */
  reply_to: ReplyTo | null;
  /** The channel's own string entries about the tap or reply; null when there are none. */
  params: Record<string, string> | null;
}

/** What an async ask returns at once: the parked interaction. */
export interface SuspendedAsk {
  suspended: true;
  interaction: InteractionRecord;
}

/** The result type of `ask(body)`: async bodies (and `to: "caller"`) suspend, sync bodies answer. */
export type AskOutcome<B> = B extends { mode: 'async' } | { to: 'caller' } ? SuspendedAsk : AskAnswer<AnswerOf<B>>;

/** Options of `list`. */
export interface ListOptions {
  /** Default: the gateway's default, `"pending"` (the paged list is the pending list). */
  status?: InteractionStatus;
  /** 1..200; default: the gateway's default, 50. */
  limit?: number;
  /** `next_cursor` of the previous page; default: the first page. */
  cursor?: string;
  /** Only interactions of this group; default: all. */
  groupId?: string;
}

/** One page of `GET /api/interactions`, oldest first. */
export interface InteractionPage {
  items: InteractionRecord[];
  /** Pass to `list({ cursor })` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** One event of the live stream. */
export interface TailEvent {
  type: InteractionEventType;
  record: InteractionRecord;
}

/** What `answer` reports: this answer won, or an earlier one had (and nothing changed). */
export type AnswerStatus = 'answered' | 'already_answered';

export type {
  AnswerFormat,
  InteractionRecord,
  InteractionStatus,
  InteractionEventType,
  JsonSchema,
  MediaItem,
  ReplyTo,
  ReviewAction,
  ReviewAnswer,
  ReviewDecision,
};
