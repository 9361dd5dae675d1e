import { createHash } from 'node:crypto';
import type { Keys } from '../../src/store/keys.js';
import type { ScriptClient } from '../../src/store/redis/scripts/index.js';
import { GLOBAL_PER_SECOND, PER_CHAT_PER_SECOND } from './limits.js';
import type { Pacer, PacingOptions } from './pacing.js';

export interface SharedPacingOptions {
  /**
   * The process's command connection (src/store/redis/connections.ts), on the Redis every process of the deployment
   * shares; the pacing scripts are registered on it (src/store/redis/scripts/index.ts). Its owner closes it.
   */
  client: ScriptClient;
  /** The deployment's key names (its prefix), so the pacing keys share the store's cluster hash tag. */
  keys: Keys;
}

/**
 * One budget for every process that sends as one bot: each call reserves its turn with one Lua script
 * (`pace-reserve`: a slot among the bot's 30/s and the chat's next free second, atomically), waits for it here,
 * then calls; a 429 moves the chat's (or the bot's) next free time past its retry_after (`telegram-push-back`), so
 * the other processes' next reservations land after it too.
 *
 * Per chat there is no burst (unlike the in-process pacer): calls to one chat are at least a second apart, in total.
 * The bot is keyed by its numeric id (the token's public half), so two bots on one Redis keep separate budgets.
 */
export class RedisPacer implements Pacer {
  private readonly client: ScriptClient;
  private readonly keys: Keys;
  private readonly perSecond: number;
  private readonly intervalMs: number;

  constructor(
    options: SharedPacingOptions,
    private readonly botId: string,
    pacing: PacingOptions = {},
  ) {
    // The store's command connection: one more connection per process would buy nothing (each call is one script).
    this.client = options.client;
    this.keys = options.keys;
    // Slots are whole numbers per second; a fractional rate would make the script's slot times drift.
    this.perSecond = Math.max(1, Math.floor(pacing.globalPerSecond ?? GLOBAL_PER_SECOND));
    this.intervalMs = Math.ceil(1000 / (pacing.perChatPerSecond ?? PER_CHAT_PER_SECOND));
  }

  async reserve(chatId: string | null): Promise<number> {
    return (await this.reserveSlot(chatId)).wait;
  }

  /**
   * Takes the call's turn and says what was decided: the slot (epoch ms, by Redis' clock, which every process
   * shares) and the wait until it. The decision is what the budget guarantees; when the call then reaches Telegram
   * depends on the host as well.
   */
  async reserveSlot(chatId: string | null): Promise<{ slotAt: number; wait: number }> {
    const pause = this.keys.telegramPause(this.botId);
    const chat = chatId === null ? pause : this.keys.telegramChat(this.botId, chatId);
    const [slotAt, wait] = await this.client.askgateTelegramReserve(
      this.keys.telegramSlots(this.botId),
      pause,
      chat,
      this.perSecond,
      this.intervalMs,
      chatId === null ? '' : '1',
    );
    return { slotAt: Number(slotAt), wait: Number(wait) };
  }

  async pushBack(chatId: string | null, ms: number): Promise<void> {
    const scope = chatId === null ? this.keys.telegramPause(this.botId) : this.keys.telegramChat(this.botId, chatId);
    await this.client.askgateTelegramPushBack(scope, Math.max(1, Math.ceil(ms)));
  }

  /** Pushes the chat's next free time to an interval after this answer (never earlier than it already is). */
  async settled(chatId: string): Promise<void> {
    await this.pushBack(chatId, this.intervalMs);
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
