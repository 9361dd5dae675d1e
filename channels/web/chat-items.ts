import { outcomeLine, plainAnswerer, type Answerer } from '../outcome.js';
import { toPublicRecord } from '../../src/core/record.js';
import type { InteractionRecord, StoredInteraction } from '../../src/core/types.js';

/** A question as the chat shows it: the record and, once it has ended, the outcome line. */
export type ChatItem = InteractionRecord & { outcome: string | null };

/**
 * Who answered, as the person reading the chat says it: "you" for the chat's own recipient (the page says whom it
 * is signed in as), another web chat recipient by their name (`web:bob` → "bob"), anyone else as every channel
 * names them (the verified id, with the platform-given name beside it).
 */
export function chatAnswerer(recipient: string): (answerer: Answerer) => string {
  return (answerer) => {
    if (answerer.id === `web:${recipient}`) return 'you';
    if (answerer.id.startsWith('web:') && answerer.platformId !== null) return answerer.platformId;
    return plainAnswerer(answerer);
  };
}

/** The chat's view of a question for `recipient`: the public record and its outcome line in the chat's words. */
export function chatItem(record: StoredInteraction | InteractionRecord, recipient: string): ChatItem {
  return { ...toPublicRecord(record), outcome: outcomeLine(record, { who: chatAnswerer(recipient) }) };
}

/**
 * Whether a question was asked of `recipient` on this channel, on any of its surfaces: a stored record lists its
 * further surfaces in `extra_surfaces`, a public one (an event's) in `deliver`.
 */
export function askedOn(record: InteractionRecord | StoredInteraction, channel: string, recipient: string): boolean {
  const further = 'extra_surfaces' in record ? record.extra_surfaces : record.deliver;
  return (
    (record.channel === channel && record.recipient === recipient) ||
    (further ?? []).some((s) => s.channel === channel && s.recipient === recipient)
  );
}

/** Oldest first, as the questions were asked (the id breaks a tie, so the order is the same on every read). */
export const byAsked = (a: InteractionRecord, b: InteractionRecord): number =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
