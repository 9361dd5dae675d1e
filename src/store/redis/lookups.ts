import type { Keys } from '../keys.js';

/**
 * The Redis store's two channel lookups, as fields of bucketed hashes rather than a key per question (a key with a
 * TTL costs ~160 bytes; a hash field in a listpack ~45):
 *
 * - the recipient index: hash `rb:<b>`, one field `<channel>:<recipient>:<id>` per question asked of a recipient on
 *   a channel, its value the question's sequence number (the order `pendingFor` answers in); b is the bucket of
 *   `<channel>:<recipient>`, so one person's questions share one hash;
 * - the delivery lookup: hash `db:<b>`, one field `<channel>:<ref>` per delivered message, its value the id; b is
 *   the bucket of the field.
 *
 * A field has no TTL (Redis 7.0): the resolve script (answer, expiry, cancel) removes a question's fields in its
 * claim, set-delivery removes the field of a delivery it replaces, and a read drops a field whose question is gone
 * or no longer pending (a record that outlived its deadline + idle TTL without being resolved: the safety net).
 * An id never holds `:` (base64url, and `.` for a shard), so the id is what follows the last `:` of a field.
 *
 * LOOKUP_BUCKETS hashes of each kind: at the Redis default `hash-max-listpack-entries` (128) a bucket stays a
 * listpack up to ~100,000 pending channel asks a shard (~100 fields a bucket), and turns into a hashtable past it
 * (correct, about twice the bytes). `lookupBucket` must agree with the Lua `lookupBucket` (scripts/fragments.ts
 * LOOKUPS): both are the 32-bit `h = h * 31 + byte` of the UTF-8 bytes, modulo LOOKUP_BUCKETS.
 */
export const LOOKUP_BUCKETS = 1024;

export function lookupBucket(text: string): number {
  let h = 0;
  for (const byte of Buffer.from(text, 'utf8')) h = (h * 31 + byte) % 4_294_967_296;
  return h % LOOKUP_BUCKETS;
}

/** The hash and field of a question in the recipient index. */
export function recipientEntry(
  keys: Keys,
  channel: string,
  recipient: string,
  id: string,
): { key: string; field: string } {
  const who = `${channel}:${recipient}`;
  return { key: keys.recipientBucket(lookupBucket(who)), field: `${who}:${id}` };
}

/** `recipientEntry` as script arguments: the hash, then the field. */
export function recipientEntryArgs(keys: Keys, channel: string, recipient: string, id: string): [string, string] {
  const { key, field } = recipientEntry(keys, channel, recipient, id);
  return [key, field];
}

/** The hash of one recipient's entries and the prefix every entry of theirs starts with. */
export function recipientBucketOf(keys: Keys, channel: string, recipient: string): { key: string; prefix: string } {
  const who = `${channel}:${recipient}`;
  return { key: keys.recipientBucket(lookupBucket(who)), prefix: `${who}:` };
}

/** The hash and field of a delivered message in the delivery lookup. */
export function deliveryEntry(keys: Keys, channel: string, ref: string): { key: string; field: string } {
  const field = `${channel}:${ref}`;
  return { key: keys.deliveryBucket(lookupBucket(field)), field };
}
