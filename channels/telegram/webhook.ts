import { MalformedWebhook, textOf } from '../http.js';

/**
 * The Telegram webhook's parse, a pure function: a verified Update (see verify.ts) into the few inbound events
 * askgate acts on. This module imports neither the core nor grammY (a boundary test holds it to that), so it can be
 * read and tested alone.
 */

/** Who tapped or replied. */
export interface TelegramUser {
  id: string;
  username: string | null;
}

/** A tap on an inline button. */
export interface TapEvent {
  kind: 'tap';
  updateId: number;
  callbackQueryId: string;
  data: string;
  chatId: string | null;
  messageId: string | null;
  from: TelegramUser;
}

/** A message that quotes an earlier message (a reply). */
export interface ReplyEvent {
  kind: 'reply';
  updateId: number;
  chatId: string;
  messageId: string;
  quotedMessageId: string;
  quotedText: string;
  /** The reply's text, or its caption for a media message; null when it has neither. */
  text: string | null;
  /** `media_*` entries of an attached photo, document, video, audio, voice or sticker. */
  media: Record<string, string>;
  from: TelegramUser;
}

/** A message that quotes nothing: it answers no question, and may start a conversation turn (ASKGATE_ROUTES). */
export interface MessageEvent {
  kind: 'message';
  updateId: number;
  chatId: string;
  messageId: string;
  text: string | null;
  media: Record<string, string>;
  from: TelegramUser;
}

export type InboundEvent = TapEvent | ReplyEvent | MessageEvent | { kind: 'ignored'; updateId: number };

/** A verified body that is not an Update (a 400). */
export class MalformedUpdate extends MalformedWebhook {}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const idOf = (v: unknown): string | null => (typeof v === 'number' || typeof v === 'string' ? String(v) : null);
const strOf = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function userOf(v: unknown): TelegramUser {
  const u = obj(v);
  const id = idOf(u?.['id']);
  if (u === null || id === null) throw new MalformedUpdate('from.id is missing');
  return { id, username: strOf(u['username']) };
}

/** Parses a verified body. Throws MalformedUpdate (a 400) for a body that is not an Update. */
export function parseUpdate(rawBody: Buffer | string): InboundEvent {
  let update: Json | null;
  try {
    update = obj(JSON.parse(textOf(rawBody)));
  } catch {
    throw new MalformedUpdate('the body is not JSON');
  }
  const updateId = update?.['update_id'];
  if (update === null || typeof updateId !== 'number') throw new MalformedUpdate('update_id is missing');

  const query = obj(update['callback_query']);
  if (query !== null) {
    const id = idOf(query['id']);
    if (id === null) throw new MalformedUpdate('callback_query.id is missing');
    const message = obj(query['message']);
    return {
      kind: 'tap',
      updateId,
      callbackQueryId: id,
      data: strOf(query['data']) ?? '',
      chatId: idOf(obj(message?.['chat'])?.['id']),
      messageId: idOf(message?.['message_id']),
      from: userOf(query['from']),
    };
  }

  const message = obj(update['message']);
  if (message === null) return { kind: 'ignored', updateId };
  const quoted = obj(message['reply_to_message']);
  const chatId = idOf(obj(message['chat'])?.['id']);
  const messageId = idOf(message['message_id']);
  if (quoted === null) {
    // A service message (a member joined, a title changed) has no author text or media: nothing to converse with.
    const text = strOf(message['text']) ?? strOf(message['caption']);
    const media = mediaParams(message);
    if (
      chatId === null ||
      messageId === null ||
      message['from'] === undefined ||
      (text === null && media['media_kind'] === undefined)
    )
      return { kind: 'ignored', updateId };
    return { kind: 'message', updateId, chatId, messageId, text, media, from: userOf(message['from']) };
  }
  const quotedMessageId = idOf(quoted['message_id']);
  if (chatId === null || messageId === null || quotedMessageId === null)
    throw new MalformedUpdate('message.chat.id or message_id is missing');
  return {
    kind: 'reply',
    updateId,
    chatId,
    messageId,
    quotedMessageId,
    quotedText: strOf(quoted['text']) ?? strOf(quoted['caption']) ?? '',
    text: strOf(message['text']) ?? strOf(message['caption']),
    media: mediaParams(message),
    from: userOf(message['from']),
  };
}

const MEDIA_FIELDS = ['document', 'video', 'audio', 'voice', 'animation', 'video_note', 'sticker'] as const;

/** The `media_*` entries of a message's attachment (documented in channels/telegram/README.md). */
export function mediaParams(message: Json): Record<string, string> {
  let kind: string | null = null;
  let file: Json | null = null;
  const photos = message['photo'];
  if (Array.isArray(photos) && photos.length > 0) {
    // Telegram sends every size of a photo, smallest first; the last is the original.
    kind = 'photo';
    file = obj(photos[photos.length - 1]);
  } else {
    for (const field of MEDIA_FIELDS) {
      const candidate = obj(message[field]);
      if (candidate !== null) {
        kind = field;
        file = candidate;
        break;
      }
    }
  }
  if (kind === null || file === null) return {};
  const params: Record<string, string> = { media_kind: kind };
  const copy = (from: string, to: string): void => {
    const v = file?.[from];
    if (typeof v === 'string' || typeof v === 'number') params[to] = String(v);
  };
  copy('file_id', 'media_file_id');
  copy('file_unique_id', 'media_file_unique_id');
  copy('file_size', 'media_file_size');
  copy('width', 'media_width');
  copy('height', 'media_height');
  copy('duration', 'media_duration');
  copy('file_name', 'media_file_name');
  copy('mime_type', 'media_mime_type');
  const caption = strOf(message['caption']);
  if (caption !== null) params['media_caption'] = caption;
  return params;
}
