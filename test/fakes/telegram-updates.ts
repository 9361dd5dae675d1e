import { BOT_USER, issuedCallbackQueries, type FakeMessage } from './telegram-server.js';

/**
 * Real-shaped Telegram updates (as the Bot API posts them to a webhook) for tests: taps on inline buttons and
 * replies that quote a question, with text, a captioned photo or a document.
 */

let updateSeq = 500_000;
let messageSeq = 9_000;

export const PERSON = { id: 424242, is_bot: false, first_name: 'Ada', username: 'ada' };

function chatOf(chatId: string): Record<string, unknown> {
  return /^\d+$/.test(chatId)
    ? { id: Number(chatId), type: 'private', first_name: 'Ada', username: 'ada' }
    : { id: Number(chatId), type: 'supergroup', title: 'Team' };
}

function quoted(question: FakeMessage): Record<string, unknown> {
  return {
    message_id: question.message_id,
    date: 1_700_000_000,
    chat: chatOf(question.chat_id),
    from: BOT_USER,
    text: question.text,
  };
}

export function nextUpdateId(): number {
  return ++updateSeq;
}

/** A tap on the button of `question` whose label is `label` (or whose callback_data is `data`). */
export function tapUpdate(
  question: FakeMessage,
  pick: { label?: string; data?: string },
  from = PERSON,
): Record<string, unknown> {
  let data = pick.data;
  if (data === undefined) {
    const rows = (question.reply_markup?.['inline_keyboard'] ?? []) as Array<
      Array<{ text: string; callback_data?: string }>
    >;
    data = rows.flat().find((b) => b.text === pick.label)?.callback_data;
    if (data === undefined) throw new Error(`no button "${pick.label}" on message ${question.message_id}`);
  }
  const update_id = nextUpdateId();
  const id = `cbq-${updateSeq}`;
  issuedCallbackQueries.add(id);
  return {
    update_id,
    callback_query: {
      id,
      from,
      chat_instance: '-1234567890',
      message: {
        message_id: question.message_id,
        date: 1_700_000_000,
        chat: chatOf(question.chat_id),
        from: BOT_USER,
        text: question.text,
      },
      data,
    },
  };
}

type Attachment =
  | { text: string }
  | { photo: { caption?: string; fileId?: string } }
  | { document: { caption?: string; fileName: string; mimeType: string } };

/** A message in the question's chat that quotes it. */
export function replyUpdate(question: FakeMessage, attachment: Attachment, from = PERSON): Record<string, unknown> {
  const message: Record<string, unknown> = {
    message_id: ++messageSeq,
    date: 1_700_000_100,
    chat: chatOf(question.chat_id),
    from,
    reply_to_message: quoted(question),
  };
  if ('text' in attachment) message['text'] = attachment.text;
  if ('photo' in attachment) {
    const fileId = attachment.photo.fileId ?? 'AgACAgQAAxkBAAIBZ2Zphoto';
    message['photo'] = [
      { file_id: `${fileId}-s`, file_unique_id: 'AQADs', file_size: 1200, width: 90, height: 60 },
      { file_id: fileId, file_unique_id: 'AQADphoto', file_size: 48213, width: 1280, height: 853 },
    ];
    if (attachment.photo.caption !== undefined) message['caption'] = attachment.photo.caption;
  }
  if ('document' in attachment) {
    message['document'] = {
      file_id: 'BQACAgQAAxkBAAIBdoc',
      file_unique_id: 'AgADdoc',
      file_name: attachment.document.fileName,
      mime_type: attachment.document.mimeType,
      file_size: 20480,
    };
    if (attachment.document.caption !== undefined) message['caption'] = attachment.document.caption;
  }
  return { update_id: nextUpdateId(), message };
}

/** Posts an update to the gateway's webhook as Telegram does; returns the HTTP status. */
export async function postUpdate(gatewayUrl: string, secret: string | null, update: unknown): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers['x-telegram-bot-api-secret-token'] = secret;
  const res = await fetch(`${gatewayUrl}/channels/telegram/webhook`, {
    method: 'POST',
    headers,
    body: JSON.stringify(update),
  });
  await res.arrayBuffer();
  return res.status;
}
