import { EventEmitter } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import type { Keys } from '../../src/store/keys.js';
import type { ScriptClient } from '../../src/store/redis/scripts/index.js';

/** One message of a web chat conversation: the person's, or a reply posted into it (a route's answer). */
export interface ChatMessage {
  id: string;
  /** `person`: typed on the page; `askgate`: a reply posted into the conversation. */
  from: 'person' | 'askgate';
  text: string;
  /** The person's message a reply answers, when it answers one. */
  reply_to: string | null;
  /** ISO 8601. */
  at: string;
}

/** How many messages a conversation keeps: the page shows the recent past, not an archive. */
export const CONVERSATION_KEEP = 200;
/** A conversation nobody writes in for a week is forgotten. */
const RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Where the web chat's conversations live, shared by every process: `serve` appends the person's messages, the
 * worker appends replies (`postReply`), and whichever process serves the page reads them.
 */
export interface ConversationLog {
  append(recipient: string, message: ChatMessage): Promise<void>;
  /** The conversation, oldest first. */
  read(recipient: string): Promise<ChatMessage[]>;
  /** Every message appended from now on, by any process; returns the unsubscribe function. */
  subscribe(listener: (recipient: string, message: ChatMessage) => void): () => void;
}

type Listener = (recipient: string, message: ChatMessage) => void;

/** Local listeners of appended messages. */
class Listeners {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  emit(recipient: string, message: ChatMessage): void {
    this.emitter.emit('message', recipient, message);
  }

  add(listener: Listener): () => void {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }
}

/** On the in-memory store: one process, one map. */
export class MemoryConversationLog implements ConversationLog {
  private readonly byRecipient = new Map<string, ChatMessage[]>();
  private readonly listeners = new Listeners();

  async append(recipient: string, message: ChatMessage): Promise<void> {
    const list = this.byRecipient.get(recipient) ?? [];
    list.push(message);
    this.byRecipient.set(recipient, list.slice(-CONVERSATION_KEEP));
    this.listeners.emit(recipient, message);
  }

  subscribe(listener: Listener): () => void {
    return this.listeners.add(listener);
  }

  async read(recipient: string): Promise<ChatMessage[]> {
    return [...(this.byRecipient.get(recipient) ?? [])];
  }
}

/**
 * On Redis: a capped list per recipient, appended (and published) by one script (`chat-log-append`) on the command
 * connection; appends are heard on the process's one subscriber connection, subscribed on the first listener.
 */
export class RedisConversationLog implements ConversationLog {
  private readonly listeners = new Listeners();
  private subscribed = false;
  private listening = false;

  constructor(
    private readonly redis: {
      client: ScriptClient;
      keys: Keys;
      /** The process's shared pub/sub connection (src/store/redis/connections.ts); its owner closes it. */
      subscriber: () => Redis | Cluster;
    },
  ) {}

  async append(recipient: string, message: ChatMessage): Promise<void> {
    await this.redis.client.askgateChatLogAppend(
      this.redis.keys.webChatLog(recipient),
      JSON.stringify(message),
      CONVERSATION_KEEP,
      RETENTION_MS,
      this.redis.keys.webChatEvents,
      recipient,
    );
  }

  subscribe(listener: Listener): () => void {
    if (!this.listening) {
      // The message handler is added once; only the SUBSCRIBE is tried again after a failure (else each retry would
      // add a handler, and every message would be shown once per retry).
      this.listening = true;
      const channel = this.redis.keys.webChatEvents;
      this.redis.subscriber().on('message', (from: string, raw: string) => {
        if (from !== channel) return;
        try {
          const { r, m } = JSON.parse(raw) as { r: string; m: ChatMessage };
          this.listeners.emit(r, m);
        } catch {
          // Not a message of ours: nothing to show.
        }
      });
    }
    if (!this.subscribed) {
      this.subscribed = true;
      void this.redis
        .subscriber()
        .subscribe(this.redis.keys.webChatEvents)
        .catch(() => {
          this.subscribed = false;
        });
    }
    return this.listeners.add(listener);
  }

  async read(recipient: string): Promise<ChatMessage[]> {
    const raw = await this.redis.client.lrange(this.redis.keys.webChatLog(recipient), 0, -1);
    return raw.map((m) => JSON.parse(m) as ChatMessage);
  }
}
