import { createHash } from 'node:crypto';
import type { AuditEvent } from './wire/audit.js';

/**
 * Checking an audit trail (docs/doors.md, "Audit trail") on the client's side: `hash` of event n is the hex SHA-256
 * of (event n-1's `hash`, or the empty string for the first) followed by `canonicalJson` of event n without its
 * `hash`. The rule is the contract's; the gateway seals its chains by the same rule in its own code, and
 * test/sdk/audit.test.ts holds the two to the same written-out hashes.
 */

/**
 * JSON with the keys of every object sorted (by UTF-16 code unit, as `Array.prototype.sort` does) and no
 * whitespace; `undefined` members are left out, as `JSON.stringify` does. The form every hash covers.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, a function or a symbol has no JSON form; inside an array JSON.stringify writes null for them.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const object = value as Record<string, unknown>;
  const members = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`);
  return `{${members.join(',')}}`;
}

/** The hash of `event` (its `hash` member, if any, ignored) chained to `previousHash` ('' for the first event). */
export function eventHash(previousHash: string, event: Omit<AuditEvent, 'hash'> | AuditEvent): string {
  const { hash: _ignored, ...content } = event as AuditEvent;
  return createHash('sha256')
    .update(previousHash + canonicalJson(content))
    .digest('hex');
}

/** The outcome of `verifyChain`: ok, or the first event whose seq or hash is wrong and why. */
export type ChainVerdict = { ok: true; count: number } | { ok: false; seq: number; reason: string };

/**
 * Recomputes the chain of `events` (oldest first) and compares every stored `hash` with it. The first event whose
 * `seq` is not its position or whose hash differs is named: an edited event fails there, a removed or inserted one
 * fails at the first seq that moved.
 */
export function verifyChain(events: readonly AuditEvent[]): ChainVerdict {
  let previous = '';
  for (const [index, event] of events.entries()) {
    const expectedSeq = index + 1;
    if (event.seq !== expectedSeq) {
      return { ok: false, seq: expectedSeq, reason: `event ${expectedSeq} carries seq ${String(event.seq)}` };
    }
    const expected = eventHash(previous, event);
    if (expected !== event.hash) {
      return {
        ok: false,
        seq: event.seq,
        reason: `event ${event.seq} (${event.type}) does not match its hash: it, or the trail before it, was changed`,
      };
    }
    previous = event.hash;
  }
  return { ok: true, count: events.length };
}
