import twilio from 'twilio';

/**
 * X-Twilio-Signature, checked with the twilio package's own `validateRequest`: an HMAC-SHA1 of the URL Twilio
 * called — the PUBLIC one, as configured in the console, not the address the request reached behind a proxy —
 * followed by every POST parameter sorted by name. Kept apart from the plugin so it can be read and tested alone;
 * it imports no part of the core.
 */
export const SIGNATURE_HEADER = 'x-twilio-signature';

export interface TwilioVerifyInput {
  authToken: string;
  /** The public URL of the webhook, e.g. `https://askgate.example.com/channels/twilio/sms`. */
  publicUrl: string;
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

export function verifyTwilio({ authToken, publicUrl, params, headers }: TwilioVerifyInput): boolean {
  const raw = headers[SIGNATURE_HEADER];
  const given = Array.isArray(raw) ? raw[0] : raw;
  if (given === undefined || given === '' || authToken === '') return false;
  return twilio.validateRequest(authToken, given, publicUrl, params);
}
