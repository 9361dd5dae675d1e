import { createHash, randomBytes } from 'node:crypto';

/** 96 random bits: unguessable enough for an id that still needs a token to read, and short in Redis. */
export function newInteractionId(): string {
  return randomBytes(12).toString('base64url');
}

/** A callback ticket: 256 bits from the CSPRNG. It is a bearer capability; only its hash is stored. */
export function newTicket(): string {
  return randomBytes(32).toString('base64url');
}

export function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}
