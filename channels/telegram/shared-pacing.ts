import { createHash } from 'node:crypto';
import type { PacingAccount, PacingSlots } from '../../src/core/channel-state.js';
import { GLOBAL_PER_SECOND, PER_CHAT_PER_SECOND } from './limits.js';
import type { Pacer, PacingOptions } from './pacing.js';

/**
 * One budget for every process that sends as one bot, in the ChannelState's shared pacing slots: each call reserves
 * its turn in one atomic step (a slot among the bot's 30/s and the chat's next free second), waits for it here, then
 * calls; a 429 moves the chat's (or the bot's) next free time past its retry_after, so the other processes' next
 * reservations land after it too.
 *
 * Per chat there is no burst (unlike the in-process pacer): calls to one chat are at least a second apart, in total.
 * The bot is named by its numeric id (the token's public half), so two bots on one store keep separate budgets.
 */
export class SharedTelegramPacer implements Pacer {
  private readonly account: PacingAccount;
  private readonly perSecond: number;
  private readonly intervalMs: number;

  constructor(
    /** The deployment's shared pacing slots (ChannelState's `pacing`). */
    private readonly slots: PacingSlots,
    botId: string,
    pacing: PacingOptions = {},
  ) {
    this.account = { platform: 'telegram', account: botId };
    // Slots are whole numbers per second; a fractional rate would make the slot times drift.
    this.perSecond = Math.max(1, Math.floor(pacing.globalPerSecond ?? GLOBAL_PER_SECOND));
    this.intervalMs = Math.ceil(1000 / (pacing.perChatPerSecond ?? PER_CHAT_PER_SECOND));
  }

  async reserve(chatId: string | null): Promise<number> {
    return (await this.reserveSlot(chatId)).wait;
  }

  /**
   * Takes the call's turn and says what was decided: the slot (epoch ms, by the state's clock, which every process
   * shares) and the wait until it. The decision is what the budget guarantees; when the call then reaches Telegram
   * depends on the host as well.
   */
  reserveSlot(chatId: string | null): Promise<{ slotAt: number; wait: number }> {
    return this.slots.reserve(this.account, chatId, this.perSecond, this.intervalMs);
  }

  async pushBack(chatId: string | null, ms: number): Promise<void> {
    await this.slots.pushBack(this.account, chatId, ms);
  }

  /** Pushes the chat's next free time to an interval after this answer (never earlier than it already is). */
  async settled(chatId: string): Promise<void> {
    await this.pushBack(chatId, this.intervalMs);
  }
}

/**
 * The bot's numeric id: the part of its token before the colon (public; the secret half never reaches the state). A
 * token of another shape is hashed rather than handed on.
 */
export function botIdOf(token: string): string {
  const id = /^(\d+):/.exec(token)?.[1];
  return id ?? createHash('sha256').update(token).digest('hex').slice(0, 16);
}
