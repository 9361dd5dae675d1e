import type { ChannelCore, SurfaceClaim } from '../contract.js';
import { json, text as textResponse, type WebhookResponse } from '../http.js';
import type { GraphClient } from './graph-client.js';
import { toChannelError } from './messages.js';
import { handshake } from './verify.js';
import type { StatusEvent } from './webhook.js';
import type { ReplyTo, StoredInteraction } from '../../src/core/types.js';
import type { Logger } from '../../src/observability/logger.js';

/**
 * Reading what arrives on the WhatsApp webhook: who sent it (a wa_id, digits only), the params an answer carries
 * about its sender, the surface it may answer and the question it quotes, the order of delivery receipts, and the media
 * a message points at.
 */

/** Delivery statuses in the order a message moves through them; a late receipt never moves it back. */
export const STATUS_RANK: Record<string, number> = { pending: 0, sent: 1, delivered: 2, read: 3, failed: 4 };
/** Before any receipt: Meta accepted the message. Telegram, with no receipts at all, reports the same word. */
export const INITIAL_STATUS = 'pending';

export const digits = (address: string): string => address.replace(/[^\d]/g, '');
export const whoIs = (waId: string): string => `whatsapp:+${waId}`;

/** Only the number a question went to may answer it, and only on this channel (spelled with or without `+`). */
export function surfaceOf(waId: string): SurfaceClaim {
  return { channel: 'whatsapp', recipient: waId, recipientSpelling: 'digits' };
}

/** reply_to: the quoted question, with the delivery status its receipts last reported. */
export function quotedQuestion(stored: StoredInteraction, contextId: string | null): ReplyTo | null {
  if (contextId === null || stored.delivery?.['message_id'] !== contextId) return null;
  return { message_id: contextId, status: stored.delivery['status'] ?? INITIAL_STATUS, text: stored.question };
}

/** The params every answer from a message carries about its sender and the message it quotes. */
export function personParams(event: {
  from: string;
  profileName: string | null;
  messageId: string;
  contextId: string | null;
}): Record<string, string> {
  const params: Record<string, string> = { from: event.from, message_id: event.messageId };
  if (event.profileName !== null) params['profile_name'] = event.profileName;
  if (event.contextId !== null) params['context_id'] = event.contextId;
  return params;
}

/** media_url and media_file_size from GET /{media-id}; a failed lookup leaves them out rather than the answer. */
export async function mediaLookup(
  graph: GraphClient,
  mediaId: string | null,
  logger: Logger | undefined,
): Promise<Record<string, string>> {
  if (mediaId === null) return {};
  try {
    const info = await graph.mediaInfo(mediaId);
    const out: Record<string, string> = {};
    if (info.url !== null) out['media_url'] = info.url;
    if (info.fileSize !== null) out['media_file_size'] = info.fileSize;
    return out;
  } catch (err) {
    logger?.warn({ channel: 'whatsapp', err: toChannelError(err).message }, 'whatsapp media lookup failed');
    return {};
  }
}

/** A delivery receipt as the core applies it: its rank, its state, and for a failed message Meta's code and words. */
export function receiptOf(event: StatusEvent, rank: number): Parameters<ChannelCore['receipt']>[2] {
  const failed = event.status === 'failed';
  return {
    status: event.status,
    rank,
    state: failed ? 'failed' : (event.status as 'sent' | 'delivered' | 'read'),
    ...(event.timestamp === null ? {} : { at: event.timestamp }),
    ...(failed
      ? {
          error: {
            code: event.errorCode === null ? 'failed' : String(event.errorCode),
            message: event.errorTitle ?? 'WhatsApp reported the message failed.',
          },
        }
      : {}),
  };
}

/** Meta's GET handshake: the challenge echoed back when the verify token matches, else a 403 saying what to fix. */
export function handshakeResponse(query: Readonly<Record<string, unknown>>, verifyToken: string): WebhookResponse {
  const challenge = handshake(query, verifyToken);
  return challenge === null
    ? json(403, {
        error: 'forbidden',
        message: 'hub.mode must be "subscribe" and hub.verify_token must match WHATSAPP_VERIFY_TOKEN.',
      })
    : textResponse(200, challenge);
}
