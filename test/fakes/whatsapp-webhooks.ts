import { createHmac } from 'node:crypto';

/**
 * Cloud API webhook bodies, as Meta sends them (one entry, one change, `value.messages` or `value.statuses`), and a
 * poster that signs the exact bytes with the app secret the way Meta does (X-Hub-Signature-256).
 */

export const APP_SECRET = 'wa-app-secret_0123456789abcdef';
export const VERIFY_TOKEN = 'wa-verify-token_42';
export const PHONE_NUMBER_ID = '106540352242922';
export const WABA_ID = '102290129340398';

let seq = 0;
const nextId = (): string => `wamid.IN${String(++seq).padStart(10, '0')}`;

function envelope(value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: PHONE_NUMBER_ID },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

function inbound(from: string, message: Record<string, unknown>, contextId?: string): Record<string, unknown> {
  return envelope({
    contacts: [{ profile: { name: 'Ada Person' }, wa_id: from }],
    messages: [
      {
        from,
        id: nextId(),
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...(contextId === undefined ? {} : { context: { from: '15550000000', id: contextId } }),
        ...message,
      },
    ],
  });
}

export const buttonReply = (from: string, contextId: string, id: string, title: string) =>
  inbound(from, { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id, title } } }, contextId);

export const listReply = (from: string, contextId: string, id: string, title: string) =>
  inbound(
    from,
    { type: 'interactive', interactive: { type: 'list_reply', list_reply: { id, title, description: '' } } },
    contextId,
  );

export const textReply = (from: string, body: string, contextId?: string) =>
  inbound(from, { type: 'text', text: { body } }, contextId);

export const imageReply = (from: string, mediaId: string, caption: string, contextId?: string) =>
  inbound(
    from,
    { type: 'image', image: { caption, mime_type: 'image/jpeg', sha256: 'c2hhMjU2LW9mLXRoZS1waG90bw==', id: mediaId } },
    contextId,
  );

export const nfmReply = (from: string, contextId: string, response: Record<string, unknown>) =>
  inbound(
    from,
    {
      type: 'interactive',
      interactive: {
        type: 'nfm_reply',
        nfm_reply: { name: 'flow', body: 'Sent', response_json: JSON.stringify(response) },
      },
    },
    contextId,
  );

export const statusUpdate = (
  messageId: string,
  recipient: string,
  status: string,
  error?: { code: number; title: string },
) =>
  envelope({
    statuses: [
      {
        id: messageId,
        status,
        timestamp: String(Math.floor(Date.now() / 1000)),
        recipient_id: recipient,
        ...(error === undefined ? {} : { errors: [{ code: error.code, title: error.title }] }),
      },
    ],
  });

/** The message id of an inbound body built above. */
export const inboundId = (body: Record<string, unknown>): string =>
  (
    (
      ((body['entry'] as Array<Record<string, unknown>>)[0]?.['changes'] as Array<Record<string, unknown>>)[0]?.[
        'value'
      ] as Record<string, unknown>
    )['messages'] as Array<Record<string, string>>
  )[0]?.['id'] ?? '';

function sign(raw: string, secret = APP_SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/** POSTs a body to the webhook; `signature` null sends none, a string sends it as is. Resolves with the status. */
export async function postWebhook(baseUrl: string, body: unknown, signature?: string | null): Promise<number> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = signature === undefined ? sign(raw) : signature;
  if (sig !== null) headers['x-hub-signature-256'] = sig;
  const res = await fetch(`${baseUrl}/channels/whatsapp/webhook`, { method: 'POST', headers, body: raw });
  await res.text();
  return res.status;
}
