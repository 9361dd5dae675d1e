import { MalformedWebhook, textOf } from '../http.js';

/**
 * The WhatsApp webhook's parse, a pure function: a verified body (verify.ts checks X-Hub-Signature-256 first) into
 * the few events askgate acts on. This module imports neither the core nor any SDK (a boundary test holds it to
 * that).
 */

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

/** A verified body that is not a WhatsApp webhook (a 400). */
export class MalformedPayload extends MalformedWebhook {}

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
    body = obj(JSON.parse(textOf(rawBody)));
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
