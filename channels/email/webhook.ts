import { headerOf, MalformedWebhook, type WebhookHeaders } from '../http.js';

/**
 * The inbound door's body, once verified: one raw RFC 5322 message, posted as `message/rfc822`. Only its framing
 * is checked here (the type, something in it); reading the MIME structure is inbound.ts's (mailparser), which this
 * module may not import (channels/*\/webhook.ts stay free of vendor packages).
 */
export const INBOUND_CONTENT_TYPE = 'message/rfc822';

export interface RawMail {
  kind: 'mail';
  raw: Buffer;
}

/** A verified body that is not one raw message (a 400). */
export class MalformedMail extends MalformedWebhook {}

export function parseRawMail(rawBody: Buffer, headers: WebhookHeaders): RawMail {
  const type = (headerOf(headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== INBOUND_CONTENT_TYPE)
    throw new MalformedMail(`Content-Type must be ${INBOUND_CONTENT_TYPE} (the raw message), not ${type || 'none'}`);
  // A message is headers, a blank line, a body: without one header line it is not a message at all.
  const head = rawBody.subarray(0, 8192).toString('latin1');
  if (!/^[!-9;-~]+:/m.test(head)) throw new MalformedMail('the body is not a raw message (no header lines)');
  return { kind: 'mail', raw: rawBody };
}
