import { EventEmitter } from 'node:events';
import type {
  ChannelState,
  ChatLogLimits,
  ChatLogName,
  ChatLogs,
  ConversationRefs,
  EventDedupe,
  PacingAccount,
  PacingSlot,
  PacingSlots,
} from '../core/channel-state.js';
import type { Clock } from '../core/ports.js';

/** A value that stops mattering at `until` (epoch ms), as a key with a PX lifetime does on Redis. */
interface Expiring<T> {
  value: T;
  until: number;
}

/** How many writes pass between two sweeps of an expiring map (amortised: a sweep costs one pass). */
const SWEEP_EVERY = 1024;

/**
 * A map of expiring values, each read as absent once its time has passed (and dropped then); every SWEEP_EVERY
 * writes the passed ones are dropped too, so keys written once and never read again (event ids) do not pile up.
 */
class ExpiringMap<T> {
  private readonly entries = new Map<string, Expiring<T>>();
  private writes = 0;

  constructor(private readonly now: Clock) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    const now = this.now();
    this.writes += 1;
    if (this.writes % SWEEP_EVERY === 0)
      for (const [name, entry] of this.entries) if (entry.until <= now) this.entries.delete(name);
    this.entries.set(key, { value, until: now + Math.max(1, ttlMs) });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

const accountName = ({ platform, account }: PacingAccount): string => `${platform}\n${account}`;
const chatName = (account: PacingAccount, chat: string): string => `${accountName(account)}\n${chat}`;

/**
 * The pacing scripts' rules (redis/scripts/pace-*.lua) in one process: the same slots, pauses, chat times and
 * departure gate, by the process clock. Each method runs without an await, so it is as atomic here as a script is
 * on Redis.
 */
class MemoryPacingSlots implements PacingSlots {
  /** Each account's reserved slot numbers (slot k at floor(k · 1000 / rate) ms). */
  private readonly slots = new Map<string, Set<number>>();
  private readonly pauses: ExpiringMap<number>;
  private readonly chats: ExpiringMap<number>;
  private readonly departures: ExpiringMap<number>;

  constructor(private readonly now: Clock) {
    this.pauses = new ExpiringMap(now);
    this.chats = new ExpiringMap(now);
    this.departures = new ExpiringMap(now);
  }

  async reserve(
    account: PacingAccount,
    chat: string | null,
    perSecond: number,
    perChatIntervalMs: number,
  ): Promise<PacingSlot> {
    const now = this.now();
    const rate = Math.max(1, Math.floor(perSecond));
    const name = accountName(account);
    const taken = this.slots.get(name) ?? new Set<number>();
    this.slots.set(name, taken);
    // Slots before now are spent; forgetting them keeps the walk below as short as the backlog.
    const spent = Math.floor((now * rate) / 1000);
    for (const k of taken) if (k < spent) taken.delete(k);
    let earliest = Math.max(now, this.pauses.get(name) ?? 0);
    if (chat !== null) earliest = Math.max(earliest, this.chats.get(chatName(account, chat)) ?? 0);
    let k = Math.ceil((earliest * rate) / 1000);
    while (taken.has(k)) k += 1;
    taken.add(k);
    const slotAt = Math.floor((k * 1000) / rate);
    // A chat without an interval keeps no next free time of its own (only a push-back gives it one).
    if (chat !== null && perChatIntervalMs > 0)
      this.chats.set(chatName(account, chat), slotAt + perChatIntervalMs, slotAt - now + perChatIntervalMs);
    return { slotAt, wait: slotAt - now };
  }

  async depart(account: PacingAccount, chat: string, intervalMs: number, returned: boolean): Promise<number> {
    const now = this.now();
    const name = chatName(account, chat);
    if (!returned) {
      const last = this.departures.get(name) ?? 0;
      if (now - last < intervalMs) return intervalMs - (now - last);
    }
    this.departures.set(name, now, intervalMs);
    return 0;
  }

  async pushBack(account: PacingAccount, chat: string | null, ms: number): Promise<number> {
    const now = this.now();
    const wait = Math.max(1, Math.ceil(ms));
    const scope = chat === null ? this.pauses : this.chats;
    const name = chat === null ? accountName(account) : chatName(account, chat);
    const current = scope.get(name) ?? 0;
    if (now + wait > current) {
      scope.set(name, now + wait, wait);
      return wait;
    }
    return current - now;
  }
}

/** Chat logs in one process: a capped list per log, forgotten `retentionMs` after its last append. */
class MemoryChatLogs implements ChatLogs {
  private readonly logs: ExpiringMap<string[]>;
  private readonly listeners = new EventEmitter().setMaxListeners(0);

  constructor(now: Clock) {
    this.logs = new ExpiringMap(now);
  }

  async append(log: ChatLogName, entry: string, limits: ChatLogLimits): Promise<void> {
    const name = `${log.channel}\n${log.conversation}`;
    const entries = [...(this.logs.get(name) ?? []), entry].slice(-limits.keep);
    this.logs.set(name, entries, limits.retentionMs);
    this.listeners.emit(log.channel, log.conversation, entry);
  }

  async read(log: ChatLogName): Promise<string[]> {
    return [...(this.logs.get(`${log.channel}\n${log.conversation}`) ?? [])];
  }

  subscribe(channel: string, listener: (conversation: string, entry: string) => void): () => void {
    this.listeners.on(channel, listener);
    return () => this.listeners.off(channel, listener);
  }
}

class MemoryConversationRefs implements ConversationRefs {
  private readonly refs: ExpiringMap<string>;

  constructor(now: Clock) {
    this.refs = new ExpiringMap(now);
  }

  async remember(channel: string, recipient: string, reference: string, ttlMs: number): Promise<void> {
    this.refs.set(`${channel}\n${recipient}`, reference, Math.ceil(ttlMs));
  }

  async recall(channel: string, recipient: string): Promise<string | null> {
    return this.refs.get(`${channel}\n${recipient}`) ?? null;
  }

  async forget(channel: string, recipient: string): Promise<void> {
    this.refs.delete(`${channel}\n${recipient}`);
  }
}

class MemoryEventDedupe implements EventDedupe {
  private readonly seen: ExpiringMap<true>;

  constructor(now: Clock) {
    this.seen = new ExpiringMap(now);
  }

  async firstSeen(key: string, windowMs: number): Promise<boolean> {
    if (this.seen.get(key) !== undefined) return false;
    this.seen.set(key, true, Math.ceil(windowMs));
    return true;
  }

  async forget(key: string): Promise<void> {
    this.seen.delete(key);
  }
}

/**
 * ChannelState in this process (the in-memory store's deployment: one process). `now` is the clock every rule reads
 * (a fixed one in tests). Expired entries are dropped when next read, and swept every so many writes.
 */
export class MemoryChannelState implements ChannelState {
  readonly shared = false;
  readonly pacing: PacingSlots;
  readonly chatLogs: ChatLogs;
  readonly conversations: ConversationRefs;
  readonly dedupe: EventDedupe;

  constructor(now: Clock = Date.now) {
    this.pacing = new MemoryPacingSlots(now);
    this.chatLogs = new MemoryChatLogs(now);
    this.conversations = new MemoryConversationRefs(now);
    this.dedupe = new MemoryEventDedupe(now);
  }
}
