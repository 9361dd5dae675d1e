import { MalformedWebhook, textOf } from '../http.js';

/**
 * Twilio's messaging webhooks, as pure functions over the form parameters (already verified, see verify.ts): an
 * inbound SMS or WhatsApp message, or a status callback. Imports neither the core nor the twilio package.
 */

/**
 * The form parameters of a body. A repeated name keeps all its values when `all` is set (the signature covers
 * each); otherwise a repeated name is dropped, as no Twilio field repeats.
 */
export function formParams(rawBody: Buffer | string, all: true): Record<string, string | string[]>;
export function formParams(rawBody: Buffer | string, all?: false): Record<string, string>;
export function formParams(rawBody: Buffer | string, all = false): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  const repeated = new Set<string>();
  for (const [k, v] of new URLSearchParams(textOf(rawBody))) {
    const had = params[k];
    if (had === undefined) params[k] = v;
    else {
      repeated.add(k);
      params[k] = Array.isArray(had) ? [...had, v] : [had, v];
    }
  }
  if (!all) for (const k of repeated) delete params[k];
  return params;
}

export interface InboundMessage {
  kind: 'message';
  messageSid: string;
  /** `+15551234567`, or `whatsapp:+15551234567` for WhatsApp via Twilio. */
  from: string;
  to: string;
  body: string;
  /** WhatsApp: the SID of the message this one replies to (the person used "Reply"). */
  originalRepliedMessageSid: string | null;
  /** WhatsApp: the payload of a tapped quick-reply button. */
  buttonPayload: string | null;
  buttonText: string | null;
  profileName: string | null;
  /** `media_*` entries of the first attachment, plus `media_count`. */
  media: Record<string, string>;
  /** `OptOutType` (STOP, START, HELP) when Twilio's Advanced Opt-Out recognised a keyword. */
  optOutType: string | null;
}

export interface StatusCallback {
  kind: 'status';
  messageSid: string;
  status: string;
  errorCode: string | null;
}

/** A verified body that is not a Twilio webhook (a 400). */
export class MalformedRequest extends MalformedWebhook {}

const get = (p: Record<string, string>, k: string): string | null =>
  p[k] === undefined || p[k] === '' ? null : (p[k] as string);

export function parseInbound(params: Record<string, string>): InboundMessage {
  const messageSid = get(params, 'MessageSid') ?? get(params, 'SmsSid');
  const from = get(params, 'From');
  if (messageSid === null || from === null) throw new MalformedRequest('MessageSid and From are required');
  const media: Record<string, string> = {};
  const count = Number(get(params, 'NumMedia') ?? '0');
  if (count > 0) {
    const type = get(params, 'MediaContentType0') ?? '';
    media['media_count'] = String(count);
    media['media_kind'] = type.split('/')[0] || 'file';
    media['media_content_type'] = type;
    const url = get(params, 'MediaUrl0');
    if (url !== null) media['media_url'] = url;
    const body = get(params, 'Body');
    if (body !== null) media['media_caption'] = body;
  }
  return {
    kind: 'message',
    messageSid,
    from,
    to: get(params, 'To') ?? '',
    body: params['Body'] ?? '',
    originalRepliedMessageSid: get(params, 'OriginalRepliedMessageSid'),
    buttonPayload: get(params, 'ButtonPayload'),
    buttonText: get(params, 'ButtonText'),
    profileName: get(params, 'ProfileName'),
    media,
    optOutType: get(params, 'OptOutType'),
  };
}

export function parseStatus(params: Record<string, string>): StatusCallback {
  const messageSid = get(params, 'MessageSid') ?? get(params, 'SmsSid');
  const status = get(params, 'MessageStatus') ?? get(params, 'SmsStatus');
  if (messageSid === null || status === null) throw new MalformedRequest('MessageSid and MessageStatus are required');
  return { kind: 'status', messageSid, status, errorCode: get(params, 'ErrorCode') };
}
