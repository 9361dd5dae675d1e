import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Web chat link tokens: `<recipient, base64url>.<HMAC-SHA256(secret, recipient), base64url>`. Stateless, so every
 * process with the same secret accepts them; whoever holds the link is that recipient (treat links like passwords).
 * Pure functions: no core, no express.
 */

const mac = (secret: string, recipient: string): Buffer =>
  createHmac('sha256', secret).update(`askgate-web-chat\n${recipient}`).digest();

/** The longest recipient a link is minted for. */
export const LINK_RECIPIENT_MAX = 200;

/** `POST /api/channels/web/links`'s body as JSON Schema: the rule the door applies to it. */
export const LINK_BODY_SCHEMA = {
  type: 'object',
  required: ['recipient'],
  properties: {
    recipient: {
      type: 'string',
      minLength: 1,
      maxLength: LINK_RECIPIENT_MAX,
      description: 'Who the link signs in as: the recipient web chat asks name.',
    },
  },
} as const;

export function mintLinkToken(secret: string, recipient: string): string {
  return `${Buffer.from(recipient, 'utf8').toString('base64url')}.${mac(secret, recipient).toString('base64url')}`;
}

/** The recipient a token signs in as, or null for a malformed or forged token (compared in constant time). */
export function verifyLinkToken(secret: string, token: string | undefined): string | null {
  if (token === undefined) return null;
  const m = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (m === null) return null;
  const recipient = Buffer.from(m[1] as string, 'base64url').toString('utf8');
  const given = Buffer.from(m[2] as string, 'base64url');
  const expected = mac(secret, recipient);
  return given.length === expected.length && timingSafeEqual(given, expected) ? recipient : null;
}
