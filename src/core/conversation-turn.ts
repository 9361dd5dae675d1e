import type { ReplyTo } from './types.js';

/**
 * A chat message that answers no question, as the channel saw it (docs/parks.md, "Routes"): what a channel hands
 * over and the run lifecycle takes, so it lives in the core both import.
 */
export interface ConversationTurn {
  channel: string;
  /** The conversation (chat id) the message was written in. */
  recipient: string;
  /** The message itself: unique in its conversation; the reply quotes it. */
  messageId: string;
  /**
   * Where the reply goes when not under `messageId` itself: a Slack message written inside a thread is answered in
   * that thread (its root `thread_ts`). Absent: the reply quotes `messageId`.
   */
  threadId?: string;
  text: string | null;
  /**
   * The message it quotes, if any (never a pending question: quoting one answers it instead), in the shape of an
   * answer's `reply_to`; null when it quoted nothing.
   */
  replyTo: ReplyTo | null;
  params: Record<string, string>;
  /** Who wrote it, as the channel names people (`telegram:@ada`). */
  from: string;
}
