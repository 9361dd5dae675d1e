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
} from '../../core/channel-state.js';
import { redisCall } from './checkpoints.js';
import type { RedisConnections } from './connections.js';

/** The seen-set claims of channels' events live beside the other seen claims, under their own name. */
const SEEN_NAMESPACE = 'channel:';

/**
 * Pacing on Redis: each method is one script on the command connection (pace-reserve-3, pace-gap-1,
 * pace-push-back-1), so a send costs the same round trips as before the port: one to reserve, and for a chat with
 * a departure gate one more to depart and one to settle. Times come from Redis TIME, which every process shares.
 */
class RedisPacingSlots implements PacingSlots {
  constructor(private readonly connections: RedisConnections) {}

  async reserve(
    { platform, account }: PacingAccount,
    chat: string | null,
    perSecond: number,
    perChatIntervalMs: number,
  ): Promise<PacingSlot> {
    const keys = this.connections.keys;
    const pause = keys.pacePause(platform, account);
    const [slotAt, wait] = await redisCall(() =>
      this.connections
        .command()
        .askgatePaceReserve(
          keys.paceSlots(platform, account),
          pause,
          chat === null ? pause : keys.paceChat(platform, account, chat),
          Math.max(1, Math.floor(perSecond)),
          perChatIntervalMs,
          chat === null ? '' : '1',
        ),
    );
    return { slotAt: Number(slotAt), wait: Number(wait) };
  }

  async depart({ platform, account }: PacingAccount, chat: string, intervalMs: number, returned: boolean) {
    const key = this.connections.keys.paceDeparture(platform, account, chat);
    return Number(
      await redisCall(() => this.connections.command().askgatePaceGap(key, intervalMs, returned ? '1' : '')),
    );
  }

  async pushBack({ platform, account }: PacingAccount, chat: string | null, ms: number): Promise<number> {
    const keys = this.connections.keys;
    const scope = chat === null ? keys.pacePause(platform, account) : keys.paceChat(platform, account, chat);
    return Number(
      await redisCall(() => this.connections.command().askgatePacePushBack(scope, Math.max(1, Math.ceil(ms)))),
    );
  }
}

type ChatListener = (conversation: string, entry: string) => void;

/**
 * Chat logs on Redis: a capped list per log, appended (and published) by one script (`chat-log-append`) on the
 * command connection; appends are heard on the process's one subscriber connection, subscribed on the first listener.
 */
class RedisChatLogs implements ChatLogs {
  private readonly listeners = new EventEmitter().setMaxListeners(0);
  private subscribed = false;
  private listening = false;

  constructor(private readonly connections: RedisConnections) {}

  async append(log: ChatLogName, entry: string, limits: ChatLogLimits): Promise<void> {
    const keys = this.connections.keys;
    await redisCall(() =>
      this.connections
        .command()
        .askgateChatLogAppend(
          keys.chatLog(log.channel, log.conversation),
          entry,
          limits.keep,
          limits.retentionMs,
          keys.chatEvents,
          log.channel,
          log.conversation,
        ),
    );
  }

  read(log: ChatLogName): Promise<string[]> {
    const key = this.connections.keys.chatLog(log.channel, log.conversation);
    return redisCall(() => this.connections.command().lrange(key, 0, -1));
  }

  subscribe(channel: string, listener: ChatListener): () => void {
    const events = this.connections.keys.chatEvents;
    if (!this.listening) {
      // The message handler is added once; only the SUBSCRIBE is tried again after a failure (else each retry would
      // add a handler, and every entry would be heard once per retry).
      this.listening = true;
      this.connections.subscriber().on('message', (from: string, raw: string) => {
        if (from !== events) return;
        let message: { c?: unknown; r?: unknown; m?: unknown };
        try {
          message = JSON.parse(raw) as typeof message;
        } catch {
          return; // Not a message of ours: nothing to tell.
        }
        const { c, r, m } = message;
        if (typeof c === 'string' && typeof r === 'string' && typeof m === 'string') this.listeners.emit(c, r, m);
      });
    }
    if (!this.subscribed) {
      this.subscribed = true;
      void this.connections
        .subscriber()
        .subscribe(events)
        .catch(() => {
          this.subscribed = false;
        });
    }
    this.listeners.on(channel, listener);
    return () => this.listeners.off(channel, listener);
  }
}

class RedisConversationRefs implements ConversationRefs {
  constructor(private readonly connections: RedisConnections) {}

  async remember(channel: string, recipient: string, reference: string, ttlMs: number): Promise<void> {
    const key = this.connections.keys.conversationRef(channel, recipient);
    await redisCall(() => this.connections.command().set(key, reference, 'PX', Math.max(1, Math.ceil(ttlMs))));
  }

  recall(channel: string, recipient: string): Promise<string | null> {
    const key = this.connections.keys.conversationRef(channel, recipient);
    return redisCall(() => this.connections.command().get(key));
  }

  async forget(channel: string, recipient: string): Promise<void> {
    const key = this.connections.keys.conversationRef(channel, recipient);
    await redisCall(() => this.connections.command().del(key));
  }
}

/** One claim per key (SET NX PX) from its first sight, whatever window boundary a platform's retry crosses. */
class RedisEventDedupe implements EventDedupe {
  constructor(private readonly connections: RedisConnections) {}

  async firstSeen(key: string, windowMs: number): Promise<boolean> {
    const name = this.connections.keys.seen(`${SEEN_NAMESPACE}${key}`);
    const claimed = await redisCall(() =>
      this.connections.command().set(name, '1', 'PX', Math.max(1, Math.ceil(windowMs)), 'NX'),
    );
    return claimed === 'OK';
  }

  async forget(key: string): Promise<void> {
    const name = this.connections.keys.seen(`${SEEN_NAMESPACE}${key}`);
    await redisCall(() => this.connections.command().del(name));
  }
}

/**
 * ChannelState on the deployment's Redis (a Redis that does not answer is `store_unavailable`, so a channel's webhook
 * answers 503 and the platform delivers the event again later), through the process's connection factory: every process of the
 * deployment shares it. Opens no connection of its own (the command connection and, for a subscriber, the pub/sub
 * one), so the factory's owner closes them.
 */
export class RedisChannelState implements ChannelState {
  readonly shared = true;
  readonly pacing: PacingSlots;
  readonly chatLogs: ChatLogs;
  readonly conversations: ConversationRefs;
  readonly dedupe: EventDedupe;

  constructor(connections: RedisConnections) {
    this.pacing = new RedisPacingSlots(connections);
    this.chatLogs = new RedisChatLogs(connections);
    this.conversations = new RedisConversationRefs(connections);
    this.dedupe = new RedisEventDedupe(connections);
  }
}
