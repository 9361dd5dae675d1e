import { describe, expect, it } from 'vitest';
import {
  hashTicketSecret,
  newInteractionId,
  newTicketSecret,
  parseTicket,
  ticketMatches,
  ticketOf,
} from '../../src/core/ids.js';

describe('ids and tickets', () => {
  it('makes 16-character base64url interaction ids that never start with - or _ (a CLI would take them for options)', () => {
    const ids = Array.from({ length: 5000 }, () => newInteractionId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes 256-bit ticket secrets and keeps only 128 bits of their SHA-256, in base64url', () => {
    const secret = newTicketSecret();
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(hashTicketSecret(secret)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(hashTicketSecret(secret)).not.toContain(secret);
  });

  it('a ticket names its question: <secret>.<id>, with a shard mark kept as part of the id', () => {
    const secret = newTicketSecret();
    const id = newInteractionId();
    expect(parseTicket(ticketOf(secret, id))).toEqual({ secret, interactionId: id });
    expect(parseTicket(ticketOf(secret, `${id}.3`))).toEqual({ secret, interactionId: `${id}.3` });
    // Only the stored hash of its own secret opens it.
    expect(ticketMatches(secret, hashTicketSecret(secret))).toBe(true);
    expect(ticketMatches(newTicketSecret(), hashTicketSecret(secret))).toBe(false);
    expect(ticketMatches(secret, null)).toBe(false);
    // A stored value of another length (a hash in another form) never matches, and does not throw.
    expect(ticketMatches(secret, 'a'.repeat(64))).toBe(false);
  });

  it('anything but <43-character secret>.<id> is no ticket: a secret alone, garbage', () => {
    expect(parseTicket(newTicketSecret())).toBeNull();
    for (const bad of ['', '..%2F..', 'short', `${'A'.repeat(43)}.`, `${'A'.repeat(42)}.abcdefghijklmnop`, 'a/b'])
      expect(parseTicket(bad)).toBeNull();
  });
});
