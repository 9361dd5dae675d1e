import { createHmac, timingSafeEqual } from 'node:crypto';
import { ACCEPTED, headerOf, refused, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * `X-Askgate-Signature: sha256=<hex>`: the HMAC-SHA256 of the exact body with EMAIL_INBOUND_SECRET, written by
 * whatever posts inbound mail to askgate (a relay, a provider's inbound webhook behind a small function). Compared
 * in constant time, before a byte of the message is parsed. Imports nothing of the core.
 */
export const SIGNATURE_HEADER = 'x-askgate-signature';

/** The header's value for `body` under `secret` (what a relay writes). */
export function signatureOf(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function verify({ secret, rawBody, headers }: VerifyInput): VerifyResult {
  if (secret === '') return refused('no EMAIL_INBOUND_SECRET is configured, so no inbound mail is taken');
  const given = headerOf(headers, SIGNATURE_HEADER);
  if (given === undefined || given === '') return refused('the X-Askgate-Signature header is missing');
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(given.trim());
  if (match === null) return refused('the X-Askgate-Signature header is not sha256=<64 hex digits>');
  const want = createHmac('sha256', secret).update(rawBody).digest();
  const got = Buffer.from((match[1] as string).toLowerCase(), 'hex');
  return got.length === want.length && timingSafeEqual(got, want)
    ? ACCEPTED
    : refused('the X-Askgate-Signature header does not sign this body');
}
