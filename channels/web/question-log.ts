import type { ChatLogs } from '../../src/core/channel-state.js';

/**
 * Which questions a web chat recipient was shown, so a reload shows the answered, expired and cancelled ones as it
 * did before (the store lists only pending questions by recipient). Kept in the ChannelState's chat logs beside the
 * conversation, under a channel of its own, so every process appends and reads the same list and a conversation's
 * subscribers never hear these entries.
 */
export interface QuestionLog {
  /** Notes that `id` was shown to `recipient`. */
  shown(recipient: string, id: string): Promise<void>;
  /** The ids shown to `recipient`, oldest first, each once. */
  read(recipient: string): Promise<string[]>;
}

/** How many questions the chat remembers: as many as the messages of its conversation. */
export const QUESTIONS_KEEP = 200;
/** A chat nobody is asked anything for a week forgets its ended questions (as its conversation is forgotten). */
const RETENTION_MS = 7 * 24 * 3600 * 1000;
/** The chat logs' channel the list is kept under (the conversation's is `web`). */
const CHANNEL = 'web-questions';

export class ChatLogQuestions implements QuestionLog {
  constructor(private readonly logs: ChatLogs) {}

  async shown(recipient: string, id: string): Promise<void> {
    await this.logs.append({ channel: CHANNEL, conversation: recipient }, id, {
      keep: QUESTIONS_KEEP,
      retentionMs: RETENTION_MS,
    });
  }

  async read(recipient: string): Promise<string[]> {
    return [...new Set(await this.logs.read({ channel: CHANNEL, conversation: recipient }))];
  }
}
