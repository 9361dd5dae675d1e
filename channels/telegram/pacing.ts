import type { Transformer } from 'grammy';
import { GLOBAL_PER_SECOND, MAX_429_RETRIES, MAX_RETRY_AFTER_SECONDS, PER_CHAT_BURST, PER_CHAT_PER_SECOND } from './limits.js';

/**
 * Outbound pacing for the Bot API, as a grammY transformer wrapped around the client (the way grammY's own
 * throttler plugs in): a token bucket per chat (about 1 message/s, a small burst) and one for the whole bot
 * (about 30/s), then a 429 is honoured by waiting its `retry_after` and trying again.
 *
 * The buckets live in this process. On several processes sharing one bot each paces itself, so the sum can exceed
 * Telegram's budget; the 429 handling is what keeps that safe. (A BullMQ queue with a shared limiter is the planned
 * follow-up for multi-process deployments; see channels/telegram/README.md.)
 */

export interface PacingOptions {
  /** Messages per second in one chat. Default `PER_CHAT_PER_SECOND` (1). */
  perChatPerSecond?: number;
  /** Messages one chat may send at once before pacing starts. Default `PER_CHAT_BURST` (3). */
  perChatBurst?: number;
  /** Calls per second over all chats. Default `GLOBAL_PER_SECOND` (30). */
  globalPerSecond?: number;
  /** The longest retry_after waited through in one call; longer ones return the 429. Default 30 s. */
  maxRetryAfterSeconds?: number;
  /** 429 retries per call. Default 3. */
  max429Retries?: number;
}

/** A token bucket that hands out waits instead of refusals: callers queue in arrival order. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(private readonly perSecond: number, private readonly burst: number, private readonly now: () => number = Date.now) {
    this.tokens = burst;
    this.last = now();
  }

  /** Reserves one token; resolves with how long the caller must wait for it (ms). */
  reserve(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000);
  }

  /** Full again (nothing owed): the bucket can be forgotten. */
  get idle(): boolean {
    return this.tokens + ((this.now() - this.last) / 1000) * this.perSecond >= this.burst;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The methods that put a message into a chat (and so count against its per-chat budget). */
const CHAT_METHODS = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup', 'sendPhoto', 'sendDocument', 'copyMessage']);

export function pacingTransformer(options: PacingOptions = {}): Transformer {
  const perChat = options.perChatPerSecond ?? PER_CHAT_PER_SECOND;
  const burst = options.perChatBurst ?? PER_CHAT_BURST;
  const global = new TokenBucket(options.globalPerSecond ?? GLOBAL_PER_SECOND, options.globalPerSecond ?? GLOBAL_PER_SECOND);
  const chats = new Map<string, TokenBucket>();
  const maxRetryAfter = options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS;
  const maxRetries = options.max429Retries ?? MAX_429_RETRIES;

  const bucketOf = (chatId: string): TokenBucket => {
    let bucket = chats.get(chatId);
    if (bucket === undefined) {
      // Forget idle chats now and then so a bot that talks to many people does not grow this map forever.
      if (chats.size > 10_000) for (const [id, b] of chats) if (b.idle) chats.delete(id);
      bucket = new TokenBucket(perChat, burst);
      chats.set(chatId, bucket);
    }
    return bucket;
  };

  return async (prev, method, payload, signal) => {
    const chatId = (payload as { chat_id?: unknown } | undefined)?.chat_id;
    for (let attempt = 0; ; attempt++) {
      const chatWait = CHAT_METHODS.has(method) && chatId !== undefined ? bucketOf(String(chatId)).reserve() : 0;
      const wait = Math.max(chatWait, global.reserve());
      if (wait > 0) await sleep(wait);
      const response = await prev(method, payload, signal);
      if (response.ok || response.error_code !== 429) return response;
      const retryAfter = response.parameters?.retry_after ?? 1;
      if (attempt >= maxRetries || retryAfter > maxRetryAfter) return response;
      await sleep(retryAfter * 1000);
    }
  };
}
