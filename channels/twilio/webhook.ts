/**
 * Twilio's messaging webhooks, as pure functions over the form parameters (already verified, see verify.ts): an
 * inbound SMS or WhatsApp message, or a status callback. Imports neither the core nor the twilio package.
 */

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

export class MalformedRequest extends Error {}

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
