import { createHash, timingSafeEqual } from 'node:crypto';
import { poolRandomBytes } from './random-pool.js';

/**
 * 96 random bits, base64url: unguessable enough for an id that still needs a token to read, and short in Redis.
 * An id never starts with `-` or `_`, so a command line never mistakes it for an option (`askgate ... show -x…`).
 */
export function newInteractionId(): string {
  for (;;) {
    const id = poolRandomBytes(12).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/** A callback ticket's secret: 256 bits from the CSPRNG, 43 base64url characters. Only its hash is stored. */
export function newTicketSecret(): string {
  return poolRandomBytes(32).toString('base64url');
}

/**
 * The callback ticket of a question: `<secret>.<interaction id>`. The ticket names its record (and so its shard),
 * so the store keeps no ticket key: the door reads the record by id and compares the secret's hash with the one
 * the record holds (`ticketMatches`).
 */
export function ticketOf(secret: string, interactionId: string): string {
  return `${secret}.${interactionId}`;
}

/**
 * The stored hash of a ticket's secret: the first 128 bits of its SHA-256, base64url (22 characters). Finding a
 * secret that matches it is a 2^128 preimage search, and the secret itself has 256 random bits; the shorter form
 * saves 23 bytes in every record that has a ticket.
 */
export function hashTicketSecret(secret: string): string {
  return createHash('sha256').update(secret).digest().subarray(0, 16).toString('base64url');
}

/**
 * The hash of an old ticket (minted before tickets named their record: no `.` in it), SHA-256 as 64 hex characters,
 * the name of its `t:` lookup. Kept to read those tickets for the rest of their life.
 */
export function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

/** A stored ticket hash of the old form (64 hex characters): it has a `t:` lookup of its own. */
export function isLegacyTicketHash(ticketHash: string): boolean {
  return /^[0-9a-f]{64}$/.test(ticketHash);
}

/** A ticket as the door reads it: a new one names its record; an old one is looked up by its hash. */
export type ParsedTicket =
  | { kind: 'named'; secret: string; interactionId: string }
  | { kind: 'legacy'; ticket: string };

// A new ticket: 43 secret characters, a dot, the interaction id (16 base64url characters, `.<shard>` beyond shard 0).
const NAMED_TICKET = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9][A-Za-z0-9_-]{0,254}(?:\.[0-9]{1,3})?)$/;
// An old ticket: 43 base64url characters; anything far off that shape cannot be one, so no store read is spent.
const LEGACY_TICKET = /^[A-Za-z0-9_-]{16,128}$/;

/** Reads a ticket from the door's path, or null when it cannot be one (answered as unknown, no read spent). */
export function parseTicket(ticket: string): ParsedTicket | null {
  const named = NAMED_TICKET.exec(ticket);
  if (named !== null) return { kind: 'named', secret: named[1] as string, interactionId: named[2] as string };
  return LEGACY_TICKET.test(ticket) ? { kind: 'legacy', ticket } : null;
}

/** Whether `secret` hashes to the stored `ticketHash`, compared in constant time. */
export function ticketMatches(secret: string, ticketHash: string | null): boolean {
  if (ticketHash === null) return false;
  const offered = Buffer.from(hashTicketSecret(secret));
  const stored = Buffer.from(ticketHash);
  // Lengths differ only for an old-form stored hash, which a new ticket never names: no secret leaks by this.
  return offered.length === stored.length && timingSafeEqual(offered, stored);
}
