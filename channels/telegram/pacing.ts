import type { Transformer } from 'grammy';
import {
  GLOBAL_PER_SECOND,
  MAX_429_RETRIES,
  MAX_RETRY_AFTER_SECONDS,
  PER_CHAT_BURST,
  PER_CHAT_PER_SECOND,
} from './limits.js';
import { TokenBucket } from '../token-bucket.js';

/**
 * Outbound pacing for the Bot API, as a grammY transformer wrapped around the client (the way grammY's own
 * throttler plugs in). Before each call it asks a `Pacer` how long to wait (about 1 message/s per chat, about 30/s
 * for the bot); a 429 pushes the pacer's budget back by its `retry_after` (for the chat the call went to, or for the
 * whole bot when the call went to no chat), and the call is tried again in its new turn.
 *
 * Two pacers: `LocalPacer` (token buckets in this process, for the in-memory store, where there is one process) and
 * `SharedTelegramPacer` (shared-pacing.ts: one budget for every process sharing the ChannelState). README.md "Limits and
 * pacing" says why the shared one is a reservation rather than a queue.
 */

export interface PacingOptions {
  /** Messages per second in one chat. Default `PER_CHAT_PER_SECOND` (1). */
  perChatPerSecond?: number;
  /** Messages one chat may send at once before pacing starts (in-process pacing only). Default `PER_CHAT_BURST` (1). */
  perChatBurst?: number;
  /** Calls per second over all chats. Default `GLOBAL_PER_SECOND` (30). */
  globalPerSecond?: number;
  /** The longest retry_after waited through in one call; longer ones return the 429. Default 30 s. */
  maxRetryAfterSeconds?: number;
  /** 429 retries per call. Default 3. */
  max429Retries?: number;
}

/** Where a call's turn comes from. `chatId` null: a call addressed to no chat (it counts for the bot only). */
export interface Pacer {
  /** Takes the call's turn; resolves with how long to wait for it (ms). */
  reserve(chatId: string | null): Promise<number>;
  /** Telegram said 429: nothing goes to `chatId` (null: nothing at all) for `ms`. */
  pushBack(chatId: string | null, ms: number): Promise<void>;
  /**
   * A call to `chatId` came back: the chat's next turn is measured from now, not only from the reserved slot. Telegram
   * counts by arrival, and a call can arrive late (a loaded host, a slow connection) — measuring from its answer keeps
   * the next one at least an interval behind its arrival. Optional: the in-process pacer's bucket needs no help.
   */
  settled?(chatId: string): Promise<void>;
  close?(): Promise<void>;
}

/** The budget of one process: a bucket per chat and one for the bot, plus the not-before times 429s set. */
export class LocalPacer implements Pacer {
  private readonly global: TokenBucket;
  private readonly chats = new Map<string, TokenBucket>();
  /** Until when (epoch ms) a chat, or the bot under the key null, waits out a 429. */
  private readonly pushedBack = new Map<string | null, number>();

  constructor(
    private readonly options: PacingOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    const perSecond = options.globalPerSecond ?? GLOBAL_PER_SECOND;
    // No burst: a full bucket of 30 would let 30 go at once and 30 more within the same second, twice Telegram's
    // "not more than 30 messages per second or so" (https://core.telegram.org/bots/faq).
    this.global = new TokenBucket(perSecond, 1, now);
  }

  async reserve(chatId: string | null): Promise<number> {
    const t = this.now();
    const chatWait =
      chatId === null ? 0 : Math.max(this.bucketOf(chatId).reserve(), (this.pushedBack.get(chatId) ?? 0) - t);
    return Math.max(chatWait, (this.pushedBack.get(null) ?? 0) - t, this.global.reserve());
  }

  async pushBack(chatId: string | null, ms: number): Promise<void> {
    const until = this.now() + ms;
    if (until > (this.pushedBack.get(chatId) ?? 0)) this.pushedBack.set(chatId, until);
  }

  /** The chat's next turn is at least an interval after this answer (Telegram counts by arrival). */
  async settled(chatId: string): Promise<void> {
    await this.pushBack(chatId, Math.ceil(1000 / (this.options.perChatPerSecond ?? PER_CHAT_PER_SECOND)));
  }

  private bucketOf(chatId: string): TokenBucket {
    let bucket = this.chats.get(chatId);
    if (bucket === undefined) {
      // Forget idle chats now and then so a bot that talks to many people does not grow these maps forever.
      if (this.chats.size > 10_000) {
        for (const [id, b] of this.chats) if (b.idle) this.chats.delete(id);
        const t = this.now();
        for (const [id, until] of this.pushedBack) if (until <= t) this.pushedBack.delete(id);
      }
      bucket = new TokenBucket(
        this.options.perChatPerSecond ?? PER_CHAT_PER_SECOND,
        this.options.perChatBurst ?? PER_CHAT_BURST,
        this.now,
      );
      this.chats.set(chatId, bucket);
    }
    return bucket;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The methods that put a message into a chat (and so count against its per-chat budget). */
const CHAT_METHODS = new Set([
  'sendMessage',
  'editMessageText',
  'editMessageReplyMarkup',
  'sendPhoto',
  'sendDocument',
  'copyMessage',
]);

/** The chat a call counts against, or null for a call that puts nothing into a chat (answerCallbackQuery, getMe). */
export function chatOf(method: string, payload: unknown): string | null {
  const chatId = (payload as { chat_id?: unknown } | undefined)?.chat_id;
  return CHAT_METHODS.has(method) && (typeof chatId === 'string' || typeof chatId === 'number') ? String(chatId) : null;
}

/**
 * How late a call may leave after its reserved turn and still take it. A process that stalls (a long GC, a busy
 * core) wakes every call whose turn passed meanwhile at once; sent together they would break the bot's 30 per second
 * that the turns spread out. A call later than this takes a new turn instead, after every turn already reserved.
 */
export const LATE_TURN_MS = 50;
/** New turns a call may take after missing its own, before it leaves however late it is. */
const MAX_MISSED_TURNS = 5;

/** Reserves the call's turn and waits for it; a turn missed by more than LATE_TURN_MS is given up for a new one. */
async function awaitTurn(pacer: Pacer, chatId: string | null): Promise<void> {
  for (let missed = 0; ; missed++) {
    const asked = Date.now();
    const wait = await pacer.reserve(chatId);
    if (wait > 0) await sleep(wait);
    // The turn was at least `wait` after `asked` (the shared state decided after the call left): later than that is lateness.
    if (Date.now() - (asked + wait) <= LATE_TURN_MS || missed >= MAX_MISSED_TURNS) return;
  }
}

export function pacingTransformer(pacer: Pacer, options: PacingOptions = {}): Transformer {
  const maxRetryAfter = options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS;
  const maxRetries = options.max429Retries ?? MAX_429_RETRIES;
  /**
   * In-process pacing only: per chat, the call in flight. The next one takes its turn only after it came back, so
   * its turn is measured from that answer (`settled`) and not only from a bucket reservation made while the earlier
   * call was still on its way — which a late arrival would bring within the second Telegram counts. (The shared
   * pacer reserves each call's slot in the shared state at once, spread a second apart per chat, as every process must.)
   */
  const serialize = pacer instanceof LocalPacer;
  const inFlight = new Map<string, Promise<unknown>>();
  const paced: Transformer = async (prev, method, payload, signal) => {
    const chatId = chatOf(method, payload);
    for (let attempt = 0; ; attempt++) {
      await awaitTurn(pacer, chatId);
      const response = await prev(method, payload, signal);
      if (chatId !== null && pacer.settled !== undefined) await pacer.settled(chatId);
      if (response.ok || response.error_code !== 429) return response;
      const retryAfter = response.parameters?.retry_after ?? 1;
      // Telegram's 429 does not name its scope: one on a call to a chat is read as that chat's (a chat over 1/s, a
      // group over 20/min), one on any other call as the bot's. Pushed back before giving up, so the calls after
      // this one (in every process sharing the state) wait it out as well.
      await pacer.pushBack(chatId, retryAfter * 1000);
      if (attempt >= maxRetries || retryAfter > maxRetryAfter) return response;
    }
  };
  return (prev, method, payload, signal) => {
    const chatId = chatOf(method, payload);
    if (chatId === null || !serialize) return paced(prev, method, payload, signal);
    const call = (): ReturnType<Transformer> => paced(prev, method, payload, signal);
    const mine = (inFlight.get(chatId) ?? Promise.resolve()).then(call, call);
    const done = mine.then(
      () => undefined,
      () => undefined,
    );
    inFlight.set(chatId, done);
    void done.then(() => {
      if (inFlight.get(chatId) === done) inFlight.delete(chatId);
    });
    return mine;
  };
}
