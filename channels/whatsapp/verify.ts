import { createHmac, timingSafeEqual } from 'node:crypto';
import { ACCEPTED, headerOf, refused, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * Meta's two checks, as pure functions: the X-Hub-Signature-256 of every POST, and the GET subscription handshake.
 * This module imports neither the core nor any SDK (test/channels/boundary.test.ts).
 */
export const SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * Meta signs the exact bytes it sent with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`. The body
 * must be the raw bytes (a re-serialised JSON differs in escapes, e.g. Meta writes `\/` and `\u00e9`).
 */
export function verify({ secret, rawBody, headers }: VerifyInput): VerifyResult {
  const given = headerOf(headers, SIGNATURE_HEADER);
  if (secret === '') return refused('no WHATSAPP_APP_SECRET is configured');
  if (given === undefined || !given.startsWith('sha256='))
    return refused('the X-Hub-Signature-256 header is missing or does not start with "sha256="');
  const hex = given.slice('sha256='.length);
  if (!/^[0-9a-f]{64}$/i.test(hex)) return refused('the X-Hub-Signature-256 header is not a hex SHA-256');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'))
    ? ACCEPTED
    : refused('the X-Hub-Signature-256 header does not sign this body with the app secret');
}

/**
 * The subscription handshake: Meta GETs the callback URL with `hub.mode=subscribe`, the verify token the app was
 * configured with, and a challenge to echo. Returns the challenge to answer with, or null (a 403).
 */
export function handshake(query: Readonly<Record<string, unknown>>, verifyToken: string): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || verifyToken === '')
    return null;
  const a = createHmac('sha256', 'askgate').update(token).digest();
  const b = createHmac('sha256', 'askgate').update(verifyToken).digest();
  return timingSafeEqual(a, b) ? challenge : null;
}
