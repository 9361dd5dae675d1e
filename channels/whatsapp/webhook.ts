import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The WhatsApp webhook, as pure functions: Meta's verification handshake, the X-Hub-Signature-256 check, and the
 * parse of a verified body into the few events askgate acts on. This module imports neither the core nor any SDK
 * (a boundary test holds it to that).
 */

export const SIGNATURE_HEADER = 'x-hub-signature-256';

export interface VerifyInput {
  appSecret: string;
  rawBody: Buffer | string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Meta signs the exact bytes it sent with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`. The body
 * must be the raw bytes (a re-serialised JSON differs in escapes, e.g. Meta writes `\/` and `\u00e9`).
 */
export function verify({ appSecret, rawBody, headers }: VerifyInput): boolean {
  const raw = headers[SIGNATURE_HEADER];
  const given = Array.isArray(raw) ? raw[0] : raw;
  if (given === undefined || appSecret === '' || !given.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  const hex = given.slice('sha256='.length);
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/**
 * The subscription handshake: Meta GETs the callback URL with `hub.mode=subscribe`, the verify token the app was
 * configured with, and a challenge to echo. Returns the challenge to answer with, or null (a 403).
 */
export function handshake(query: Record<string, unknown>, verifyToken: string): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || verifyToken === '')
    return null;
  const a = createHmac('sha256', 'askgate').update(token).digest();
  const b = createHmac('sha256', 'askgate').update(verifyToken).digest();
  return timingSafeEqual(a, b) ? challenge : null;
}

/** What every inbound message shares. */
interface MessageBase {
  /** The inbound message's own id (`wamid.…`): the de-duplication key. */
  messageId: string;
  /** The sender's wa_id (digits, no `+`). */
  from: string;
  profileName: string | null;
  /** The message this one answers (`context.id`): the question it quotes, or the interactive message it came from. */
  contextId: string | null;
  timestamp: string | null;
}

/** A tap on a reply button or a list row: the id askgate gave it. */
export interface TapEvent extends MessageBase {
  kind: 'tap';
  replyId: string;
  title: string;
}

/** A submitted WhatsApp Flow: its flow_token and the values of the Footer's complete payload. */
export interface FlowReplyEvent extends MessageBase {
  kind: 'flow';
  flowToken: string | null;
  values: Record<string, unknown>;
}

/** A text, or a media message (with its caption as the text). */
export interface ReplyEvent extends MessageBase {
  kind: 'reply';
  text: string | null;
  /** `media_*` entries of an attached image, document, video, audio or sticker (without the Graph lookup's). */
  media: Record<string, string>;
  /** The media id to look up (GET /{media-id}) for its URL, or null. */
  mediaId: string | null;
}

/** A delivery receipt for a message askgate sent. */
export interface StatusEvent {
  kind: 'status';
  messageId: string;
  status: string;
  recipient: string | null;
  timestamp: string | null;
  errorCode: number | null;
  errorTitle: string | null;
}

export type InboundEvent = TapEvent | FlowReplyEvent | ReplyEvent | StatusEvent;

export class MalformedPayload extends Error {}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

const MEDIA_TYPES = ['image', 'document', 'video', 'audio', 'sticker'] as const;

/** Parses a verified body: every message and status of every entry and change. Throws MalformedPayload (a 400). */
export function parsePayload(rawBody: Buffer | string): InboundEvent[] {
  let body: Json | null;
  try {
    body = obj(JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')));
  } catch {
    throw new MalformedPayload('the body is not JSON');
  }
  if (body === null || body['object'] !== 'whatsapp_business_account')
    throw new MalformedPayload('object is not "whatsapp_business_account"');
  const events: InboundEvent[] = [];
  for (const entry of arr(body['entry'])) {
    for (const change of arr(obj(entry)?.['changes'])) {
      const value = obj(obj(change)?.['value']);
      if (value === null) continue;
      const names = new Map<string, string>();
      for (const c of arr(value['contacts'])) {
        const waId = str(obj(c)?.['wa_id']);
        const name = str(obj(obj(c)?.['profile'])?.['name']);
        if (waId !== null && name !== null) names.set(waId, name);
      }
      for (const m of arr(value['messages'])) {
        const event = parseMessage(obj(m), names);
        if (event !== null) events.push(event);
      }
      for (const s of arr(value['statuses'])) {
        const status = obj(s);
        const id = str(status?.['id']);
        const state = str(status?.['status']);
        if (status === null || id === null || state === null) continue;
        const error = obj(arr(status['errors'])[0]);
        events.push({
          kind: 'status',
          messageId: id,
          status: state,
          recipient: str(status['recipient_id']),
          timestamp: str(status['timestamp']),
          errorCode: error === null ? null : Number(error['code']),
          errorTitle: error === null ? null : (str(error['title']) ?? str(error['message'])),
        });
      }
    }
  }
  return events;
}

function parseMessage(m: Json | null, names: Map<string, string>): InboundEvent | null {
  const messageId = str(m?.['id']);
  const from = str(m?.['from']);
  if (m === null || messageId === null || from === null) throw new MalformedPayload('a message has no id or from');
  const base: MessageBase = {
    messageId,
    from,
    profileName: names.get(from) ?? null,
    contextId: str(obj(m['context'])?.['id']),
    timestamp: str(m['timestamp']),
  };
  const type = str(m['type']);
  if (type === 'interactive') {
    const interactive = obj(m['interactive']);
    const reply = obj(interactive?.['button_reply']) ?? obj(interactive?.['list_reply']);
    if (reply !== null)
      return { ...base, kind: 'tap', replyId: str(reply['id']) ?? '', title: str(reply['title']) ?? '' };
    const nfm = obj(interactive?.['nfm_reply']);
    if (nfm !== null) {
      let values: Json;
      try {
        values = obj(JSON.parse(str(nfm['response_json']) ?? '')) ?? {};
      } catch {
        throw new MalformedPayload('nfm_reply.response_json is not a JSON object');
      }
      const { flow_token: token, ...rest } = values;
      return { ...base, kind: 'flow', flowToken: str(token), values: rest };
    }
    return null;
  }
  if (type === 'button') {
    // A quick-reply button of a template message: its payload is what askgate put there.
    const button = obj(m['button']);
    return { ...base, kind: 'tap', replyId: str(button?.['payload']) ?? '', title: str(button?.['text']) ?? '' };
  }
  if (type === 'text') return { ...base, kind: 'reply', text: str(obj(m['text'])?.['body']), media: {}, mediaId: null };
  for (const kind of MEDIA_TYPES) {
    if (type !== kind) continue;
    const media = obj(m[kind]) ?? {};
    const params: Record<string, string> = { media_kind: kind };
    const copy = (from: string, to: string): void => {
      const v = str(media[from]);
      if (v !== null) params[to] = v;
    };
    copy('id', 'media_id');
    copy('mime_type', 'media_mime_type');
    copy('sha256', 'media_sha256');
    copy('filename', 'media_file_name');
    copy('caption', 'media_caption');
    return { ...base, kind: 'reply', text: str(media['caption']), media: params, mediaId: str(media['id']) };
  }
  return null;
}
