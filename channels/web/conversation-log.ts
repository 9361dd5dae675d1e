import type { ChatLogs } from '../../src/core/channel-state.js';

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
/** The chat logs' channel the web chat's conversations are kept under. */
const CHANNEL = 'web';

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

/**
 * The web chat's conversations in the ChannelState's chat logs (one log per recipient, a message as JSON): on a
 * shared state every process appends to and reads the same logs and hears every append.
 */
export class ChatLogConversations implements ConversationLog {
  constructor(private readonly logs: ChatLogs) {}

  async append(recipient: string, message: ChatMessage): Promise<void> {
    await this.logs.append({ channel: CHANNEL, conversation: recipient }, JSON.stringify(message), {
      keep: CONVERSATION_KEEP,
      retentionMs: RETENTION_MS,
    });
  }

  async read(recipient: string): Promise<ChatMessage[]> {
    const entries = await this.logs.read({ channel: CHANNEL, conversation: recipient });
    return entries.map((entry) => JSON.parse(entry) as ChatMessage);
  }

  subscribe(listener: (recipient: string, message: ChatMessage) => void): () => void {
    return this.logs.subscribe(CHANNEL, (recipient, entry) => {
      let message: ChatMessage;
      try {
        message = JSON.parse(entry) as ChatMessage;
      } catch {
        return; // Not a message of ours: nothing to show.
      }
      listener(recipient, message);
    });
  }
}
