/**
 * ChannelState: the state chat channels keep beyond a question's record, shared by every process of a deployment
 * when the store is shared (Redis) and held in the process otherwise (memory). Channels reach it only through this
 * port: they never see a connection, a key name or a script. The implementations live in src/store
 * (memory-channel-state.ts, redis/channel-state.ts), and the composition root hands one to every channel.
 */

/** One outbound budget's owner: a platform account every process sending as it shares (a bot, a number, a sender). */
export interface PacingAccount {
  /** The platform, e.g. `telegram`, `slack`. */
  platform: string;
  /**
   * The account within it, safe to write into a name: a public id (a bot's numeric id) or a hash of a secret one.
   * The channel decides which; the state never sees a token.
   */
  account: string;
}

/** A reserved turn: the slot (epoch ms, by the state's shared clock) and the wait until it, ms (≥ 0). */
export interface PacingSlot {
  slotAt: number;
  wait: number;
}

/**
 * Send slots shared by every process that sends as one account. Each method is one atomic step (on Redis: one
 * script, one round trip), decided by one clock every process shares (Redis TIME; the process clock in memory).
 */
export interface PacingSlots {
  /**
   * Reserves a call's turn: the first free slot among the account's `perSecond` (slot k at floor(k · 1000 / rate)
   * ms) at or after the account's pause and, for a call into `chat`, the chat's next free time, which then moves to
   * the slot + `perChatIntervalMs`. `chat` null: a call addressed to no chat (only the pause and the rate apply).
   */
  reserve(
    account: PacingAccount,
    chat: string | null,
    perSecond: number,
    perChatIntervalMs: number,
  ): Promise<PacingSlot>;
  /**
   * The departure gate of a call into `chat`: 0 when the last call into it left at least `intervalMs` ago (this
   * call's departure is then recorded), else the wait before asking again, ms. `returned`: a call just came back,
   * and its return is recorded as the chat's last departure whatever came before (the answer returns 0).
   */
  depart(account: PacingAccount, chat: string, intervalMs: number, returned: boolean): Promise<number>;
  /**
   * The platform refused for `ms` (a 429's retry-after): nobody sends in the scope (`chat`, or the whole account
   * when null) until it has passed. Only ever moves the time later. Resolves with the wait left in the scope, ms.
   */
  pushBack(account: PacingAccount, chat: string | null, ms: number): Promise<number>;
}

/** Where a chat log belongs: the channel and the conversation within it (a recipient). */
export interface ChatLogName {
  channel: string;
  conversation: string;
}

/** How long a chat log lives: its last `keep` entries, until `retentionMs` after its last append. */
export interface ChatLogLimits {
  keep: number;
  retentionMs: number;
}

/**
 * Conversations' recent messages, shared by every process: one appends, whichever serves the page reads, and every
 * process hears each append. An entry is the channel's own encoding of a message (a string, JSON for the web chat).
 */
export interface ChatLogs {
  /** Appends `entry`, keeps the last `limits.keep`, and tells every subscriber (of any process) — in one step. */
  append(log: ChatLogName, entry: string, limits: ChatLogLimits): Promise<void>;
  /** The log's entries, oldest first; empty for a log never written or forgotten. */
  read(log: ChatLogName): Promise<string[]>;
  /**
   * Every entry appended from now on to a log of `channel`, by any process; returns the unsubscribe function. Best
   * effort while the shared connection is down (the page reads the log again when it reconnects).
   */
  subscribe(channel: string, listener: (conversation: string, entry: string) => void): () => void;
}

/**
 * Conversation references: what a channel must keep to write to a person later (a platform's conversation id and
 * service address, say), by the person's recipient id, for `ttlMs` after it was last remembered.
 */
export interface ConversationRefs {
  remember(channel: string, recipient: string, reference: string, ttlMs: number): Promise<void>;
  /** The reference last remembered and not yet expired, or null. */
  recall(channel: string, recipient: string): Promise<string | null>;
  forget(channel: string, recipient: string): Promise<void>;
}

/** De-duplication of platform event ids: a platform's redelivery of an event it already sent is taken once. */
export interface EventDedupe {
  /** True for the first claim of `key` within `windowMs` of that claim (atomic across processes), false after. */
  firstSeen(key: string, windowMs: number): Promise<boolean>;
  /** Gives a claim back, when the event it guarded could not be handled and the platform will send it again. */
  forget(key: string): Promise<void>;
}

export interface ChannelState {
  /**
   * True when every process of the deployment shares this state (Redis); false when it lives in this process only
   * (memory), where a channel may pace itself in process instead.
   */
  readonly shared: boolean;
  readonly pacing: PacingSlots;
  readonly chatLogs: ChatLogs;
  readonly conversations: ConversationRefs;
  readonly dedupe: EventDedupe;
}
