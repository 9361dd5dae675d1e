import { MalformedWebhook, headerOf, textOf, type WebhookHeaders } from '../http.js';

/**
 * The Slack doors' parsers as pure functions: read a verified request's envelope (an Events API callback, the URL
 * verification handshake, or an interactivity payload; verify.ts checks the signature first), and turn a message's
 * files into `media_*` params. This module imports neither the core nor the Slack SDK (a boundary test holds it to
 * that).
 */

export const RETRY_NUM_HEADER = 'x-slack-retry-num';
export const RETRY_REASON_HEADER = 'x-slack-retry-reason';

/** A verified body that is not a Slack request (a 400). */
export class MalformedRequest extends MalformedWebhook {}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export type EventsEnvelope =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'event'; eventId: string; body: Json }
  | { kind: 'ignored' };

/** Reads a verified Events API body. Throws MalformedRequest (a 400) for a body that is not one. */
export function parseEventsBody(rawBody: Buffer | string): EventsEnvelope {
  let body: Json | null;
  try {
    body = obj(JSON.parse(textOf(rawBody)));
  } catch {
    throw new MalformedRequest('the body is not JSON');
  }
  if (body === null) throw new MalformedRequest('the body is not a JSON object');
  if (body['type'] === 'url_verification') {
    const challenge = str(body['challenge']);
    if (challenge === null) throw new MalformedRequest('url_verification without a challenge');
    return { kind: 'challenge', challenge };
  }
  if (body['type'] !== 'event_callback') return { kind: 'ignored' };
  const eventId = str(body['event_id']);
  if (eventId === null || obj(body['event']) === null)
    throw new MalformedRequest('event_callback without event_id or event');
  return { kind: 'event', eventId, body };
}

/** Reads a verified interactivity body: form-encoded, one `payload` field holding JSON. */
export function parseInteractionBody(rawBody: Buffer | string): Json {
  const form = new URLSearchParams(textOf(rawBody));
  const raw = form.get('payload');
  if (raw === null) throw new MalformedRequest('the form has no payload field');
  let payload: Json | null;
  try {
    payload = obj(JSON.parse(raw));
  } catch {
    throw new MalformedRequest('payload is not JSON');
  }
  if (payload === null || typeof payload['type'] !== 'string') throw new MalformedRequest('payload has no type');
  return payload;
}

/**
 * The key a second delivery of one interaction repeats (the pipeline's dedupe, as event_id is for events): its
 * `trigger_id`, which Slack mints anew for every tap, submission and field change. A payload without one (a shape
 * askgate does not act on) is not de-duplicated.
 */
export function interactionDedupeKey(payload: Json): string | null {
  const trigger = str(payload['trigger_id']);
  return trigger === null || trigger === '' ? null : `slack:interaction:${trigger}`;
}

/** X-Slack-Retry-Num as a number (Slack retries an event it thinks was not acknowledged up to three times). */
export function retryNum(headers: WebhookHeaders): number | undefined {
  const raw = headerOf(headers, RETRY_NUM_HEADER);
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

export function retryReason(headers: WebhookHeaders): string | undefined {
  return headerOf(headers, RETRY_REASON_HEADER);
}

/** Slack's mimetype families → askgate's media kinds. */
function kindOf(mimetype: string | null): string {
  if (mimetype === null) return 'file';
  if (mimetype.startsWith('image/')) return 'image';
  if (mimetype.startsWith('video/')) return 'video';
  if (mimetype.startsWith('audio/')) return 'audio';
  return 'document';
}

/**
 * The `media_*` entries of a thread reply's files (documented in channels/slack/README.md). The first file is
 * described in full; `media_count` says how many came, and the other ids follow in `media_file_ids`.
 * `url_private` needs the bot token to download, so it is passed as is: a reference, not a public link.
 */
export function filesParams(files: unknown): Record<string, string> {
  if (!Array.isArray(files) || files.length === 0) return {};
  const list = files.map(obj).filter((f): f is Json => f !== null);
  const first = list[0];
  if (first === undefined) return {};
  const params: Record<string, string> = {
    media_kind: kindOf(str(first['mimetype'])),
    media_count: String(list.length),
  };
  const copy = (from: string, to: string): void => {
    const v = first[from];
    if (typeof v === 'string' || typeof v === 'number') params[to] = String(v);
  };
  copy('id', 'media_file_id');
  copy('name', 'media_file_name');
  copy('mimetype', 'media_mime_type');
  copy('filetype', 'media_file_type');
  copy('size', 'media_file_size');
  copy('url_private', 'media_url_private');
  copy('permalink', 'media_permalink');
  copy('original_w', 'media_width');
  copy('original_h', 'media_height');
  if (list.length > 1) params['media_file_ids'] = list.map((f) => str(f['id']) ?? '').join(',');
  return params;
}
