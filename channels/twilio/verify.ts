import twilio from 'twilio';
import { ACCEPTED, headerOf, refused, type VerifyInput, type VerifyResult } from '../http.js';
import { formParams } from './webhook.js';

/**
 * X-Twilio-Signature, checked with the twilio package's own `validateRequest`: an HMAC-SHA1 of the URL Twilio
 * called — the PUBLIC one, as configured in the console, not the address the request reached behind a proxy —
 * followed by every POST parameter sorted by name. The one verify.ts that imports a vendor package, because the
 * platform's algorithm (with its URL normalisation rules) lives there; the boundary test names this exception.
 * It imports no part of the core.
 */
export const SIGNATURE_HEADER = 'x-twilio-signature';

export function verify({ secret, rawBody, headers, url }: VerifyInput): VerifyResult {
  const given = headerOf(headers, SIGNATURE_HEADER);
  if (secret === '') return refused('no TWILIO_AUTH_TOKEN is configured');
  if (url === undefined || !/^https?:\/\//.test(url))
    return refused('INTERACTIONS_PUBLIC_BASE_URL is not set, so the URL Twilio signed is unknown');
  if (given === undefined || given === '') return refused('the X-Twilio-Signature header is missing');
  return twilio.validateRequest(secret, given, url, formParams(rawBody, true))
    ? ACCEPTED
    : refused('the X-Twilio-Signature header does not sign this request for the public URL');
}
