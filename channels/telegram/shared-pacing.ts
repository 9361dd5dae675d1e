import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { Keys } from '../../src/store/keys.js';
import { TELEGRAM_PUSH_BACK, TELEGRAM_RESERVE } from '../../src/store/redis/scripts/telegram-pace.js';
import { GLOBAL_PER_SECOND, PER_CHAT_PER_SECOND } from './limits.js';
import type { Pacer, PacingOptions } from './pacing.js';

export interface SharedPacingOptions {
  /** The Redis every process of the deployment shares (REDIS_URL). */
  redisUrl: string;
  /** The store's key prefix (ASKGATE_REDIS_PREFIX), so the pacing keys share its cluster hash tag. */
  prefix: string;
}

interface PaceCommands {
  askgateTelegramReserve(
    slots: string,
    pause: string,
    chat: string,
    perSecond: number,
    intervalMs: number,
    isChat: string,
  ): Promise<number>;
  askgateTelegramPushBack(scope: string, ms: number): Promise<number>;
}

/**
 * One budget for every process that sends as one bot: each call reserves its turn with one Lua script
 * (`telegram-reserve`: a slot among the bot's 30/s and the chat's next free second, atomically), waits for it here,
 * then calls; a 429 moves the chat's (or the bot's) next free time past its retry_after (`telegram-push-back`), so
 * the other processes' next reservations land after it too.
 *
 * Per chat there is no burst (unlike the in-process pacer): calls to one chat are at least a second apart, in total.
 * The bot is keyed by its numeric id (the token's public half), so two bots on one Redis keep separate budgets.
 */
export class RedisPacer implements Pacer {
  private readonly client: Redis & PaceCommands;
  private readonly keys: Keys;
  private readonly perSecond: number;
  private readonly intervalMs: number;

  constructor(
    options: SharedPacingOptions,
    private readonly botId: string,
    pacing: PacingOptions = {},
  ) {
    // Its own connection: the store's is private to it, and a short reconnect backoff keeps a blip from stalling sends.
    const client = new Redis(options.redisUrl, {
      maxRetriesPerRequest: 3,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    });
    client.on('error', () => undefined); // ioredis reconnects; a call that fails surfaces as the send's error
    client.defineCommand('askgateTelegramReserve', { lua: TELEGRAM_RESERVE, numberOfKeys: 3 });
    client.defineCommand('askgateTelegramPushBack', { lua: TELEGRAM_PUSH_BACK, numberOfKeys: 1 });
    // defineCommand adds the methods at run time; ioredis cannot type them, so the cast names what was just added.
    this.client = client as Redis & PaceCommands;
    this.keys = new Keys(options.prefix);
    // Slots are whole numbers per second; a fractional rate would make the script's slot times drift.
    this.perSecond = Math.max(1, Math.floor(pacing.globalPerSecond ?? GLOBAL_PER_SECOND));
    this.intervalMs = Math.ceil(1000 / (pacing.perChatPerSecond ?? PER_CHAT_PER_SECOND));
  }

  async reserve(chatId: string | null): Promise<number> {
    const pause = this.keys.telegramPause(this.botId);
    const chat = chatId === null ? pause : this.keys.telegramChat(this.botId, chatId);
    const wait = await this.client.askgateTelegramReserve(
      this.keys.telegramSlots(this.botId),
      pause,
      chat,
      this.perSecond,
      this.intervalMs,
      chatId === null ? '' : '1',
    );
    return Number(wait);
  }

  async pushBack(chatId: string | null, ms: number): Promise<void> {
    const scope = chatId === null ? this.keys.telegramPause(this.botId) : this.keys.telegramChat(this.botId, chatId);
    await this.client.askgateTelegramPushBack(scope, Math.max(1, Math.ceil(ms)));
  }

  /** Pushes the chat's next free time to an interval after this answer (never earlier than it already is). */
  async settled(chatId: string): Promise<void> {
    await this.pushBack(chatId, this.intervalMs);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/**
 * The bot's numeric id: the part of its token before the colon (public; the secret half never reaches a key). A token
 * of another shape is hashed rather than written into a key name.
 */
export function botIdOf(token: string): string {
  const id = /^(\d+):/.exec(token)?.[1];
  return id ?? createHash('sha256').update(token).digest('hex').slice(0, 16);
}
