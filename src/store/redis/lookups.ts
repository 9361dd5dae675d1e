import type { Keys } from '../keys.js';

/**
 * The Redis store's two channel lookups, as fields of bucketed hashes rather than a key per question (a key with a
 * TTL costs ~160 bytes; a field in a listpack hash ~45):
 *
 * - the recipient index: hash `rb:<n>:<b>`, one field `<channel>:<recipient>:<id>` per question asked of a
 *   recipient on a channel, its value the question's sequence number (the order `pendingFor` answers in); b is the
 *   bucket of `<channel>:<recipient>` among n, so one person's questions written at one level share one hash;
 * - the delivery lookup: hash `db:<b>`, one field `<channel>:<ref>` per delivered message, its value the id; b is
 *   the bucket of the field among DELIVERY_BUCKETS. A ref that is its surface's recipient, a `:` and a part without
 *   `:` (Telegram `chat:message`, Slack `channel:ts`, Discord `channel:message`) gets no field: `findByDelivery`
 *   finds it through that recipient's index (the question's delivery names the ref).
 *
 * Levels: a pending recipient entry is written at the smallest level n of RECIPIENT_LEVELS whose buckets would hold
 * about ENTRIES_PER_BUCKET entries at the store's current size (the pending list's buckets × 64, an upper bound of
 * its pending asks), so a small store pays for few hashes and a large one keeps every hash well under the Redis
 * default `hash-max-listpack-entries` (128), past which a hash turns into a hashtable (correct, about twice the
 * bytes). A read looks at every level (one HGETALL each); resolve removes a question's fields at every level.
 *
 * A field has no TTL (Redis 7.0): the resolve script (answer, expiry, cancel) removes a question's fields in its
 * claim, set-delivery removes the field of a delivery it replaces, and a read drops a field whose question is gone
 * or no longer pending (a record that outlived its deadline + idle TTL without being resolved: the safety net).
 * An id never holds `:` (base64url, and `.` for a shard), so the id is what follows the last `:` of a field.
 *
 * `lookupHash` must agree with the Lua `lookupHash` (scripts/includes/lookupHash.lua): both are the 32-bit
 * `h = h * 31 + byte` of the UTF-8 bytes.
 */
export const RECIPIENT_LEVELS = [64, 512, 4096, 32768] as const;
export const ENTRIES_PER_BUCKET = 48;
export const DELIVERY_BUCKETS = 1024;
/**
 * A resolved question's delivered messages stay findable for its idle TTL (a reply quoting it is told it was
 * answered; a late receipt still lands): resolve writes them into the window hash `rr:<w>` of its moment, w =
 * floor(now / width), width = idle TTL / RECENT_WINDOWS (at least a second), which expires a width + idle TTL after
 * the window ends; `recentWindows` names the windows a read looks in.
 */
export const RECENT_WINDOWS = 4;

/** The windows (newest first) that may hold a question resolved within the last idle TTL. */
export function recentWindows(keys: Keys, nowMs: number, idleTtlMs: number): string[] {
  const width = Math.max(Math.ceil(idleTtlMs / RECENT_WINDOWS), 1000);
  const newest = Math.floor(nowMs / width);
  const span = Math.ceil(idleTtlMs / width) + 1;
  return Array.from({ length: span + 1 }, (_, i) => keys.recentlyResolved(newest - i));
}

export function lookupHash(text: string): number {
  let h = 0;
  for (const byte of Buffer.from(text, 'utf8')) h = (h * 31 + byte) % 4_294_967_296;
  return h;
}

/** The name a recipient's entries share (`<channel>:<recipient>`), the script argument of a recipient entry. */
export function recipientName(channel: string, recipient: string): string {
  return `${channel}:${recipient}`;
}

/** Every hash one recipient's entries may be in (one per level) and the prefix each entry of theirs starts with. */
export function recipientBucketsOf(keys: Keys, channel: string, recipient: string): { keys: string[]; prefix: string } {
  const who = recipientName(channel, recipient);
  const h = lookupHash(who);
  return { keys: RECIPIENT_LEVELS.map((n) => keys.recipientBucket(n, h % n)), prefix: `${who}:` };
}

/** The hash and field of a delivered message in the delivery lookup. */
export function deliveryEntry(keys: Keys, channel: string, ref: string): { key: string; field: string } {
  const field = `${channel}:${ref}`;
  return { key: keys.deliveryBucket(lookupHash(field) % DELIVERY_BUCKETS), field };
}

/** The recipient a ref names when it is `<recipient>:<part without :>` (then it has no delivery lookup field). */
export function recipientOfRef(ref: string): string | null {
  const cut = ref.lastIndexOf(':');
  return cut > 0 && cut < ref.length - 1 ? ref.slice(0, cut) : null;
}
