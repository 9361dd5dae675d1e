import { createHash } from 'node:crypto';
import type { PacingAccount, PacingSlots } from '../src/core/channel-state.js';

export interface SharedBudget {
  /** The platform: `slack`, `whatsapp`, `twilio`. */
  platform: string;
  /** The account the budget belongs to (a bot token, a phone number id, a sender): hashed, never written as is. */
  account: string;
  /** Calls per second for the whole account, every process together (a whole number ≥ 1). */
  perSecond: number;
  /** The least gap between two calls to one chat (channel, recipient), ms. */
  perChatIntervalMs: number;
}

/**
 * One send budget for every process that sends as one account, as Telegram's (channels/telegram/shared-pacing.ts):
 * each call reserves its turn in the ChannelState's pacing slots (one atomic step: a slot among the account's
 * `perSecond`, at or after the chat's next free time, by the state's shared clock), waits for it, then calls; a 429
 * pushes the chat's (or the account's) next free time past its Retry-After, so every process's next reservation
 * lands after it too.
 */
export class SharedPacer {
  private readonly account: PacingAccount;

  constructor(
    private readonly pacing: PacingSlots,
    private readonly budget: SharedBudget,
  ) {
    // A token or number may be secret or personal: the state is given a short hash of it.
    this.account = {
      platform: budget.platform,
      account: createHash('sha256').update(budget.account).digest('hex').slice(0, 16),
    };
  }

  /** Reserves a call's turn; resolves with the wait until it, ms (already reserved: the caller must wait it out). */
  async reserve(chat: string | null): Promise<number> {
    return (await this.reserveSlot(chat)).wait;
  }

  /**
   * Reserves a call's turn and says what was decided: the slot (epoch ms by the state's clock, which every process
   * shares) and the wait until it. The decision is what the budget guarantees; tests judge it.
   */
  reserveSlot(chat: string | null): Promise<{ slotAt: number; wait: number }> {
    return this.pacing.reserve(this.account, chat, this.budget.perSecond, this.budget.perChatIntervalMs);
  }

  /**
   * The last gate before a call into `chat` leaves: resolves once the last call into it left at least the chat's
   * interval ago (by the state's clock), recording this one's departure. Planned slots spread the calls; this holds their
   * actual departures apart, whatever delayed the one before.
   */
  async depart(chat: string): Promise<void> {
    if (this.budget.perChatIntervalMs <= 0) return;
    for (;;) {
      const wait = await this.pacing.depart(this.account, chat, this.budget.perChatIntervalMs, false);
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * A call to `chat` came back: the next call into it leaves no sooner than an interval from now (the departure
   * gate), so a call that reached the platform late (a busy event loop, a slow connection) does not put the next one
   * too close behind it.
   */
  async settled(chat: string): Promise<void> {
    if (this.budget.perChatIntervalMs <= 0) return;
    await this.pacing.depart(this.account, chat, this.budget.perChatIntervalMs, true);
  }

  /** The platform answered 429: nobody sends in the scope (the chat, or the whole account) for `ms`. */
  async pushBack(chat: string | null, ms: number): Promise<void> {
    await this.pacing.pushBack(this.account, chat, ms);
  }
}
