import { createHmac } from 'node:crypto';
import { OutboundRefusedError, pinnedPost, type OutboundPolicy, type PostResult } from './outbound.js';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver verifies with any Standard Webhooks
 * library, e.g. `new Webhook(secret).verify(body, headers)` from the `standardwebhooks` npm package.
 *
 * The signed content is `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 keyed with the base64 bytes after
 * `whsec_`, sent as `v1,<base64 signature>`.
 */
export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${signature}`;
}

/** A continuation webhook the receiver did not accept (non-2xx, or the network failed): the job retries it. */
export class WebhookDeliveryError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookDeliveryError';
  }
}

/**
 * POSTs `body` signed for `secret`, under the outbound pin (outbound.ts). `msgId` is the same on every retry of one
 * continuation, so a receiver that saw it before can drop the duplicate; the timestamp is fresh on each attempt, as
 * receivers reject stale ones. Resolves with the response body text on 2xx; throws WebhookDeliveryError otherwise —
 * a target the pin refuses included, so the refusal is a failed attempt like an unreachable host.
 */
export async function postWebhook(
  url: string,
  secret: string,
  msgId: string,
  body: string,
  policy: OutboundPolicy,
  timeoutMs = 10_000,
): Promise<string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, msgId, timestamp, body),
  };
  let response: PostResult;
  try {
    response = await pinnedPost(url, headers, body, policy, timeoutMs);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new WebhookDeliveryError(
      url,
      null,
      error instanceof OutboundRefusedError
        ? `resume webhook ${url} refused: ${why} (ASKGATE_WEBHOOK_ALLOW_PRIVATE lifts this for development)`
        : `resume webhook ${url} unreachable: ${why}`,
    );
  }
  if (response.status < 200 || response.status > 299) {
    throw new WebhookDeliveryError(
      url,
      response.status,
      `resume webhook ${url} answered ${response.status}; it is retried until 2xx.`,
    );
  }
  return response.text;
}

/** A webhook's response body, parsed as JSON when it is JSON (a chat route maps it to the reply text). */
export function parseOutput(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
