import { type AuditEvent, type AuditEventType, type NewAuditEvent, eventHash } from '../core/audit.js';
import type { DeliveryReceipt, InteractionStatus, StoredInteraction } from '../core/types.js';

/**
 * The stored form of a question's audit trail, shared by both stores (docs/audit.md explains the choices).
 *
 * The trail lives inside the record's own stored string (envelope parts 9 and 10, record-codec.ts), so it costs no
 * key of its own and is kept and pruned with the record for free:
 *
 * - part 9, the *trail*: a JSON array of entries, one per event after `created`, oldest first. An entry is
 *   `[type, at (epoch ms), surface, by, detail]` with trailing nulls dropped. `seq` is not stored: it is the
 *   position (+2), so the chain can have no gap and a removed entry shifts every later seq. A surface of `0` is
 *   the record's own channel (body member `ch`), as the Redis scripts write it for the first surface's delivery
 *   events (9 characters fewer than `"telegram"`); an entry naming it in full reads the same.
 * - part 10, the *seal*: a JSON string, the concatenated hex SHA-256 hashes of events 1..k (64 characters each).
 *
 * Two kinds of event are derived rather than stored, so they cost nothing:
 * - `created` (seq 1) from the record's immutable body: at = created_at, by = asked_by, detail = the question.
 *   A pending ask whose trail nobody has read holds no trail bytes at all.
 * - a terminal marker `[answered|expired|cancelled, at]` (what the claim's Lua step appends: a few bytes, no JSON
 *   encoding) takes `by`, `surface` and the answer from the record's result, written in the same step.
 *
 * Hashes are not computed where events are appended (Redis' Lua has no SHA-256, and the claim must stay as fast
 * as it is): the first read of the trail computes the missing hashes and seals them with a compare-and-set, so
 * two readers agree. From then on an edited event no longer matches its sealed hash.
 */

/** The type of the terminal event each resolved status appends. */
export const TERMINAL_EVENT: Readonly<Record<Exclude<InteractionStatus, 'pending'>, AuditEventType>> = {
  answered: 'answered',
  expired: 'expired',
  cancelled: 'cancelled',
};

const HASH_HEX = 64;

/** The stored entry of one event (part 9's element), as JSON text. */
export function trailEntry(event: NewAuditEvent, atMs: number): string {
  const entry: unknown[] = [
    event.type,
    event.atMs ?? atMs,
    event.surface ?? null,
    event.by ?? null,
    event.detail ?? null,
  ];
  while (entry.length > 2 && entry[entry.length - 1] === null) entry.pop();
  return JSON.stringify(entry);
}

/** The terminal marker a resolve appends: `["answered",<ms>]` (the rest is derived from the record's result). */
export function terminalEntry(status: Exclude<InteractionStatus, 'pending'>, atMs: number): string {
  return `["${TERMINAL_EVENT[status]}",${atMs}]`;
}

/** Part 9 with `entry` appended: the plain string operation the Lua helper trailAppend performs (redis/scripts/includes/). */
export function appendEntry(trail: string, entry: string): string {
  return trail === '' ? `[${entry}]` : `${trail.slice(0, -1)},${entry}]`;
}

/** Part 10 with `hashes` (concatenated hex) appended. */
export function appendSeal(seal: string, hashes: string): string {
  return seal === '' ? `"${hashes}"` : `${seal.slice(0, -1)}${hashes}"`;
}

/** How many events part 10 seals. */
export function sealedCount(seal: string): number {
  return seal === '' ? 0 : Math.floor((seal.length - 2) / HASH_HEX);
}

/** The trail read back: every event with its hash, and what is not sealed yet. */
export interface ExpandedTrail {
  items: AuditEvent[];
  /** How many events the stored seal covers (the first `sealed` items carry stored hashes). */
  sealed: number;
  /** The hashes of items `sealed`.. (computed now), concatenated: what the reader seals. */
  unsealedHashes: string;
}

/**
 * The events of `record` from its stored trail and seal. Sealed events carry their *stored* hash (so a later edit
 * shows in verification); the rest get the hash computed now, chained to the last stored one.
 * Throws when the stored trail cannot be read, or the seal covers more events than the trail holds: both mean the
 * stored record was changed by hand.
 */
export function expandTrail(record: StoredInteraction, trail: string, seal: string): ExpandedTrail {
  const contents: Array<Omit<AuditEvent, 'hash'>> = [createdEvent(record)];
  let entries: unknown[];
  try {
    entries = trail === '' ? [] : (JSON.parse(trail) as unknown[]);
    if (!Array.isArray(entries)) throw new Error('not an array');
  } catch {
    throw new Error(`interaction ${record.id}: its stored audit trail is unreadable (changed by hand?)`);
  }
  for (const entry of entries) contents.push(eventOf(record, entry, contents.length + 1));
  const sealed = sealedCount(seal);
  if (sealed > contents.length) {
    throw new Error(
      `interaction ${record.id}: its audit trail seals ${sealed} events but holds ${contents.length}: events were removed`,
    );
  }
  const items: AuditEvent[] = [];
  let previous = '';
  let unsealedHashes = '';
  for (const [index, content] of contents.entries()) {
    let hash: string;
    if (index < sealed) {
      hash = seal.slice(1 + index * HASH_HEX, 1 + (index + 1) * HASH_HEX);
    } else {
      hash = eventHash(previous, content);
      unsealedHashes += hash;
    }
    items.push({ ...content, hash });
    previous = hash;
  }
  return { items, sealed, unsealedHashes };
}

/** Event 1, derived from the record's immutable body. */
function createdEvent(record: StoredInteraction): Omit<AuditEvent, 'hash'> {
  const detail: Record<string, unknown> = {
    question: record.question,
    answer_format: record.answer_format,
    mode: record.mode,
    deadline_at: record.deadline_at,
  };
  if (record.channel !== null) detail['channel'] = record.channel;
  if (record.recipient !== null) detail['recipient'] = record.recipient;
  return { seq: 1, at: record.created_at, type: 'created', by: record.asked_by, detail };
}

function eventOf(record: StoredInteraction, entry: unknown, seq: number): Omit<AuditEvent, 'hash'> {
  if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number') {
    throw new Error(`interaction ${record.id}: audit event ${seq} is malformed (changed by hand?)`);
  }
  const [type, atMs, surface, by, detail] = entry as [AuditEventType, number, unknown, unknown, unknown];
  const event: Omit<AuditEvent, 'hash'> = { seq, at: new Date(atMs).toISOString(), type };
  if (entry.length === 2 && type === 'answered' && record.result !== null) {
    // The claim's marker: who answered, where and what come from the result written in the same step.
    event.surface = record.result.surface;
    event.by = record.result.answered_by;
    event.detail = { answer: record.result.answer };
    return event;
  }
  // 0 stands for the record's own channel (it never changes), so the sealed hash, taken of this expansion, holds.
  if (surface === 0 && record.channel !== null) event.surface = record.channel;
  else if (typeof surface === 'string') event.surface = surface;
  if (typeof by === 'string') event.by = by;
  if (detail !== null && typeof detail === 'object' && !Array.isArray(detail)) {
    event.detail = detail as Record<string, unknown>;
  }
  return event;
}

/** The detail of a delivery_failed event: the platform's status word and, when it gave one, its error. */
export function failureDetail(receipt: DeliveryReceipt): Record<string, string> {
  const detail: Record<string, string> = { status: receipt.status };
  if (receipt.error !== undefined) {
    detail['code'] = receipt.error.code;
    detail['message'] = receipt.error.message;
  }
  return detail;
}
