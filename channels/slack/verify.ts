import { createHmac, timingSafeEqual } from 'node:crypto';
import { ACCEPTED, headerOf, refused, textOf, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * Slack's request signing (https://api.slack.com/authentication/verifying-requests-from-slack), as a pure function.
 * It imports neither the core nor the Slack SDK (test/channels/boundary.test.ts), so the rule that guards both
 * Slack doors can be read and tested alone.
 */
export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** The one signature version Slack sends today. */
const VERSION = 'v0';
/** Slack's rule: refuse a request whose timestamp is more than five minutes from now (replay protection). */
const WINDOW_SECONDS = 5 * 60;

/**
 * Two rules:
 * - staleness: `X-Slack-Request-Timestamp` within five minutes of now, either way, so a captured request
 *   cannot be replayed later;
 * - signature: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing
 *   secret, compared in constant time. The raw bytes are signed, so this runs before anything parses the body.
 */
export function verify({ secret, rawBody, headers, now }: VerifyInput): VerifyResult {
  const timestamp = headerOf(headers, TIMESTAMP_HEADER);
  const signature = headerOf(headers, SIGNATURE_HEADER);
  if (secret === '') return refused('no signing secret is configured');
  if (timestamp === undefined || signature === undefined)
    return refused('the X-Slack-Signature or X-Slack-Request-Timestamp header is missing');
  if (!/^\d{1,12}$/.test(timestamp)) return refused('X-Slack-Request-Timestamp is not a Unix time');
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > WINDOW_SECONDS)
    return refused('the request timestamp is more than five minutes away from now');
  const expected = Buffer.from(signSlackRequest(secret, Number(timestamp), textOf(rawBody)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return refused('the signature does not match');
  return ACCEPTED;
}

/** Signs a body as Slack does (for tests and tools that replay requests). */
export function signSlackRequest(signingSecret: string, timestamp: number, rawBody: string): string {
  return `${VERSION}=${createHmac('sha256', signingSecret).update(`${VERSION}:${timestamp}:${rawBody}`).digest('hex')}`;
}
