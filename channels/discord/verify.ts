import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { SIGNATURE_WINDOW_SECONDS } from './limits.js';
import { ACCEPTED, headerOf, refused, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * Discord's interaction signature: an Ed25519 signature (hex, `X-Signature-Ed25519`) over the
 * `X-Signature-Timestamp` header followed by the raw request body, checked with the application's public key (hex,
 * from the Developer Portal), which is this channel's `secret` in the one verify shape. Pure: node:crypto and
 * channels/http.ts only, no core, no express, no vendor SDK (test/channels/boundary.test.ts).
 */
export const SIGNATURE_HEADER = 'x-signature-ed25519';
export const TIMESTAMP_HEADER = 'x-signature-timestamp';

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo: node:crypto takes a raw 32-byte key only wrapped in it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const keys = new Map<string, KeyObject>();

/** The public key as a KeyObject, or null when it is not 32 bytes of hex (a configuration error, checked at start). */
export function publicKeyObject(publicKey: string): KeyObject | null {
  const cached = keys.get(publicKey);
  if (cached !== undefined) return cached;
  if (!/^[0-9a-fA-F]{64}$/.test(publicKey)) return null;
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKey, 'hex')]),
    format: 'der',
    type: 'spki',
  });
  keys.set(publicKey, key);
  return key;
}

/**
 * `secret` is DISCORD_PUBLIC_KEY; `now` is in milliseconds (the pipeline's clock). A timestamp more than
 * SIGNATURE_WINDOW_SECONDS away from now is refused, so a captured interaction cannot be replayed later.
 */
export function verify({ secret, rawBody, headers, now }: VerifyInput): VerifyResult {
  const signature = headerOf(headers, SIGNATURE_HEADER);
  const timestamp = headerOf(headers, TIMESTAMP_HEADER);
  if (signature === undefined || signature === '') return refused('X-Signature-Ed25519 is missing');
  if (timestamp === undefined || timestamp === '') return refused('X-Signature-Timestamp is missing');
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return refused('X-Signature-Ed25519 is not a 64-byte hex signature');
  if (!/^\d{1,12}$/.test(timestamp)) return refused('X-Signature-Timestamp is not Unix seconds');
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
    return refused(`X-Signature-Timestamp is more than ${SIGNATURE_WINDOW_SECONDS} s away from now`);
  const key = publicKeyObject(secret);
  if (key === null) return refused('the configured public key is not 32 bytes of hex');
  // Ed25519 verification is constant-time in OpenSSL; there is no secret to compare here, only a public key.
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), body]);
  const good = verifySignature(null, signed, key, Buffer.from(signature, 'hex'));
  return good ? ACCEPTED : refused('the signature does not match the body');
}
