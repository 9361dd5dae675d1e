import { createHash, randomBytes } from 'node:crypto';

/**
 * 96 random bits, base64url: unguessable enough for an id that still needs a token to read, and short in Redis.
 * An id never starts with `-` or `_`, so a command line never mistakes it for an option (`askgate ... show -x…`).
 */
export function newInteractionId(): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/** A callback ticket: 256 bits from the CSPRNG. It is a bearer capability; only its hash is stored. */
export function newTicket(): string {
  return randomBytes(32).toString('base64url');
}

export function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}
