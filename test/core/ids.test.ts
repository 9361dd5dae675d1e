import { describe, expect, it } from 'vitest';
import { hashTicket, newInteractionId, newTicket } from '../../src/core/ids.js';

describe('ids and tickets', () => {
  it('makes 16-character base64url interaction ids that never start with - or _ (a CLI would take them for options)', () => {
    const ids = Array.from({ length: 5000 }, () => newInteractionId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes 256-bit tickets and keeps only their SHA-256', () => {
    const ticket = newTicket();
    expect(Buffer.from(ticket, 'base64url')).toHaveLength(32);
    expect(hashTicket(ticket)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTicket(ticket)).not.toContain(ticket);
  });
});
