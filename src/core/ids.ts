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

/** A ticket as the door reads it: the secret, and the record it names. */
export interface ParsedTicket {
  secret: string;
  interactionId: string;
}

// A ticket: 43 secret characters, a dot, the interaction id (16 base64url characters, `.<shard>` beyond shard 0).
const TICKET = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9][A-Za-z0-9_-]{0,254}(?:\.[0-9]{1,3})?)$/;

/** Reads a ticket from the door's path, or null when it cannot be one (answered as unknown, no read spent). */
export function parseTicket(ticket: string): ParsedTicket | null {
  const named = TICKET.exec(ticket);
  return named === null ? null : { secret: named[1] as string, interactionId: named[2] as string };
}

/** Whether `secret` hashes to the stored `ticketHash`, compared in constant time. */
export function ticketMatches(secret: string, ticketHash: string | null): boolean {
  if (ticketHash === null) return false;
  const offered = Buffer.from(hashTicketSecret(secret));
  const stored = Buffer.from(ticketHash);
  // timingSafeEqual needs equal lengths; a stored hash is always 22 characters, so no secret leaks by this check.
  return offered.length === stored.length && timingSafeEqual(offered, stored);
}
