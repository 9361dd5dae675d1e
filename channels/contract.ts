import type { Router } from 'express';
import type { WebhookRoute } from './http.js';
import type { DeliveringChannel } from './registry.js';
import { isTransientNetworkFailure } from './transient.js';
import type { ActionLinkMaker } from '../src/core/action-links.js';
import type { DispatchOutcome, InboundAction } from '../src/core/dispatcher.js';
import type {
  DeliveryReceipt,
  InteractionRecord,
  ReceiptOutcome,
  StoredInteraction,
  Surface,
} from '../src/core/types.js';

/**
 * The contract every chat channel implements (Telegram, web, and the ones to come). The core sees only the narrow
 * `DeliveringChannel` face (deliver + outcome edit); the gateway also mounts the channel's webhooks and hands it a
 * `ChannelCore` port, the only way a channel reaches the core. `test/channels/contract-suite.ts` is the one suite
 * every channel passes; docs/adding-a-channel.md walks through a new one.
 *
 * Delivery references: `deliver` returns the platform's references of the sent message as string entries. The entry
 * `ref` (see `DELIVERY_REF`) is special: it is unique on the channel and the store indexes it, so an inbound reply
 * that quotes the message finds its question (`ChannelCore.findByDelivery`).
 */
export interface ChannelPlugin extends DeliveringChannel {
  readonly name: string;
  readonly surface: Surface;
  /**
   * The channel's webhooks, framework-free, each built with `webhookRoutes` (channels/pipeline.ts): the gateway
   * mounts every declared `{method, path}` before its 404 handler. A channel with no inbound door returns [].
   */
  webhooks(core: ChannelCore): WebhookRoute[];
  /**
   * Express routes beyond webhooks: pages and an API a browser calls (the web chat's /chat). Optional capability,
   * mounted beside the webhooks; a platform channel needs none.
   */
  router?(core: ChannelCore): Router;
  /** Edits the delivered question to show how it ended and drops its controls. A no-op for an undelivered one. */
  showOutcome(interaction: StoredInteraction): Promise<void>;
  /**
   * Nudges a person about a pending question by replying in the question's own thread — under the delivered message
   * (`delivery`: the references `deliver` returned for that surface), never as a new question — through the
   * channel's pacing. Called by the follow-up worker (`remind`); resolves with the references of the reply.
   */
  remind(
    interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>>;
  /**
   * A pending quorum question's live vote count (channels/outcome.ts `voteCountLine`), its controls kept. Optional:
   * a channel that cannot edit a sent message (SMS, WhatsApp) shows only the outcome.
   */
  showVotes?(interaction: StoredInteraction): Promise<void>;
  /** Posts a message into a conversation (for runs reached over chat). Optional capability. */
  postReply?(thread: ThreadRef, text: string): Promise<Record<string, string>>;
  /**
   * True when the channel offers every inbound message that answers no question to `ChannelCore.converse` and
   * posts replies with `postReply`: only then may a route (ASKGATE_ROUTES) name it; the gateway refuses to start
   * with a route on any other channel.
   */
  readonly converses?: boolean;
  /**
   * Called once by the gateway after every part is built, in registration order, each awaited before the next; a
   * channel that throws refuses the start (the channels started before it are stopped). What needs I/O at start
   * goes here, not in the constructor: a poller (a channel that pulls its updates instead of receiving webhooks)
   * starts only when `context.workers` is true, so a deployment of several `askgate serve` processes and one
   * `askgate worker` polls once.
   */
  start?(context: ChannelStartContext): Promise<void>;
  /**
   * Called once at shutdown, in the reverse order of the starts, each awaited (a graceful stop finishes its work
   * here: a poller's last batch, a queue's drain). Also called on a channel whose start never came (a gateway that
   * refused to start): it releases whatever its constructor took (timers, pacers).
   */
  stop?(): Promise<void>;
}

/** What the gateway tells a channel at `start`. */
export interface ChannelStartContext {
  /**
   * True when this process runs the background workers (`npm start`, `askgate worker`); false for `askgate serve`,
   * which serves the HTTP doors only.
   */
  readonly workers: boolean;
  /** The port to the core, the same one `webhooks` gets (a poller offers the answers it pulls through it). */
  readonly core: ChannelCore;
}

/** The delivery entry the store indexes for `findByDelivery`. */
export const DELIVERY_REF = 'ref';

/** Where a reply goes: the conversation (chat id), and optionally the message it answers. */
export interface ThreadRef {
  recipient: string;
  replyToMessageId?: string;
}

import type { ConversationTurn } from '../src/core/conversation-turn.js';
export type { ConversationTurn };

/**
 * What a channel hands the core for a tap, a reply or a submitted form, and the one outcome it words: the core's
 * inbound dispatcher (src/core/dispatcher.ts) locates the question, checks the surface and the status, reads the
 * pick and offers the answer. docs/adding-a-channel.md shows how a channel decodes its event into an action.
 */
export type {
  DispatchOutcome,
  InboundAction,
  Pick,
  QuestionRef,
  ReadAnswer,
  SurfaceClaim,
} from '../src/core/dispatcher.js';

/** The port a channel talks to the core through (built by the gateway; a fake in unit tests). */
export interface ChannelCore {
  /**
   * The one way a channel answers: locate → surface check → status check → pick → offer, as one outcome. Never
   * throws for a refused answer, a closed question or an event from another surface (see `DispatchOutcome`).
   */
  dispatch(action: InboundAction): Promise<DispatchOutcome>;
  get(id: string): Promise<StoredInteraction | null>;
  findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null>;
  /**
   * Pending questions delivered on `channel` to `recipient` (or to any of several spellings of one person, e.g. a
   * number with and without its `+`), oldest first, from the store's recipient index (never the pending list).
   */
  pendingFor(channel: string, recipient: string | readonly string[]): Promise<StoredInteraction[]>;
  /**
   * Applies a platform's delivery receipt to the question delivered as `ref` on `channel`, atomically and forward
   * only (sent → delivered → read; failed is final): a late, repeated or unknown receipt changes nothing. A failure
   * of a pending question's delivery is published as `interaction.delivery_failed` and makes it `undeliverable`.
   * Resolves with what it did and the question's id (null when no question has that ref).
   */
  receipt(
    channel: string,
    ref: string,
    receipt: DeliveryReceipt,
  ): Promise<{ outcome: ReceiptOutcome; id: string | null }>;
  /**
   * Records in the question's audit trail that `by` tried to answer it on `surface` and was refused
   * (`answer_refused`): a reply that names the question but comes from someone it was not sent to. Nothing else
   * changes; the question stays as it was.
   */
  recordRefused(id: string, surface: string, by: string): Promise<void>;
  /**
   * Replaces the delivery `ref` of a pending question with a new one (`entries`, with its own `ref`): the same
   * question sent again another way (WhatsApp's template after a 131047). A no-op when no question has that ref.
   */
  redeliver(channel: string, ref: string, entries: Record<string, string>): Promise<void>;
  /**
   * True the first time `key` is seen (across processes on one store, for an hour): de-duplicates platform retries.
   */
  firstSeen(key: string): Promise<boolean>;
  /** Gives a `firstSeen` claim back, when the event it guarded could not be handled and the platform will retry it. */
  forgetSeen(key: string): Promise<void>;
  /**
   * A message that answers no pending question, offered as a conversation turn to the route configured for its
   * channel and chat (ASKGATE_ROUTES). Resolves true when a route took it (its target replies into the thread),
   * false when none matches (the message answers nothing, as before). Optional: absent when no route is configured.
   */
  converse?(turn: ConversationTurn): Promise<boolean>;
  /** Watches every event; returns the unsubscribe function (the web chat's live updates). */
  watch(listener: (record: InteractionRecord) => void): () => void;
  /**
   * Signed action links (docs/action-links.md): `actionLinks.link(record, {channel, recipient, answer})` is a URL that
   * answers `record` with `answer` as `<channel>:<recipient>` once the person presses the one button its page shows.
   * Null when the gateway makes no links (ASKGATE_LINK_SECRET unset): a channel that needs them refuses to start,
   * naming that variable.
   */
  readonly actionLinks: ActionLinkMaker | null;
}

/**
 * A channel failure, keeping "the platform refused" apart from "the network failed" (as grammY does). Never carries
 * a token. `retryAfter` (seconds) is set when the platform said when to come back.
 */
export class ChannelError extends Error {
  /**
   * A network failure on the way (a reset or refused connection, a timeout; see channels/transient.ts): the core
   * sends a question again a few times before the ask is refused (src/core/delivery-retry.ts). Derived from the
   * cause, so every channel that keeps the SDK's error as `cause` gets it alike.
   */
  readonly transient: boolean;

  constructor(
    readonly channel: string,
    readonly kind: 'refused' | 'network' | 'invalid',
    message: string,
    readonly retryAfter: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChannelError';
    this.transient = kind === 'network' && isTransientNetworkFailure(options?.cause);
  }
}
