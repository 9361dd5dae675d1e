import type { ChannelState } from '../../src/core/channel-state.js';

/**
 * What a conversation reply needs of the mail it answers, kept in the channel state (shared by every process on
 * Redis) until the route's answer goes out, however late: its subject and its References, so the reply lands in
 * the person's thread. Keyed by the sender and the Message-ID of their mail.
 */
export interface ThreadFacts {
  subject: string;
  references: string[];
}

/** How long a thread's facts are kept: a parked run may answer days later. */
const THREAD_TTL_MS = 30 * 24 * 3600 * 1000;
/** The most References carried on (RFC 5322 §3.6.4 allows trimming the middle; clients keep the first and last). */
const REFERENCES_MAX = 20;

export function threads(state: ChannelState) {
  const key = (from: string, messageId: string): string => `${from.toLowerCase()} ${messageId}`;
  return {
    async remember(from: string, messageId: string, facts: ThreadFacts): Promise<void> {
      const references =
        facts.references.length <= REFERENCES_MAX
          ? facts.references
          : [facts.references[0] as string, ...facts.references.slice(-(REFERENCES_MAX - 1))];
      await state.conversations.remember(
        'email',
        key(from, messageId),
        JSON.stringify({ ...facts, references }),
        THREAD_TTL_MS,
      );
    },
    async recall(from: string, messageId: string | null): Promise<ThreadFacts | null> {
      if (messageId === null) return null;
      const raw = await state.conversations.recall('email', key(from, messageId));
      if (raw === null) return null;
      try {
        return JSON.parse(raw) as ThreadFacts;
      } catch {
        return null;
      }
    },
  };
}
