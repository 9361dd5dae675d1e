import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { SIGNATURE_WINDOW_SECONDS } from './limits.js';

/**
 * Discord's interaction signature: an Ed25519 signature (hex, `X-Signature-Ed25519`) over the
 * `X-Signature-Timestamp` header followed by the raw request body, checked with the application's public key (hex,
 * from the Developer Portal). Pure: node:crypto only, no core, no express, no vendor SDK.
 */
export const SIGNATURE_HEADER = 'x-signature-ed25519';
export const TIMESTAMP_HEADER = 'x-signature-timestamp';

export interface DiscordVerifyInput {
  /** The application's public key, 64 hex characters. */
  publicKey: string;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** Now in Unix seconds. */
  now: number;
}

export type DiscordVerdict = { ok: true } | { ok: false; reason: string };

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

function header(headers: DiscordVerifyInput['headers'], name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

export function verifyDiscord({ publicKey, rawBody, headers, now }: DiscordVerifyInput): DiscordVerdict {
  const signature = header(headers, SIGNATURE_HEADER);
  const timestamp = header(headers, TIMESTAMP_HEADER);
  if (signature === undefined || signature === '') return { ok: false, reason: 'X-Signature-Ed25519 is missing' };
  if (timestamp === undefined || timestamp === '') return { ok: false, reason: 'X-Signature-Timestamp is missing' };
  if (!/^[0-9a-fA-F]{128}$/.test(signature))
    return { ok: false, reason: 'X-Signature-Ed25519 is not a 64-byte hex signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Signature-Timestamp is not Unix seconds' };
  if (Math.abs(now - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
    return { ok: false, reason: `X-Signature-Timestamp is more than ${SIGNATURE_WINDOW_SECONDS} s away from now` };
  const key = publicKeyObject(publicKey);
  if (key === null) return { ok: false, reason: 'the configured public key is not 32 bytes of hex' };
  // Ed25519 verification is constant-time in OpenSSL; there is no secret to compare here, only a public key.
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
  const good = verifySignature(null, signed, key, Buffer.from(signature, 'hex'));
  return good ? { ok: true } : { ok: false, reason: 'the signature does not match the body' };
}
