import { createHmac } from 'node:crypto';
import type { AttemptOutcome } from './run-store.js';
import { OutboundRefusedError, pinnedPost, type OutboundPolicy, type PostResult } from './outbound.js';

/** How a delivery ended, as a run's attempt outcome records it (without when, and which park). */
export type DeliveryResult = Omit<AttemptOutcome, 'at' | 'park'>;

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
    /** The failure in the terms a run's attempt outcome shows: no URL, header or body in it. */
    readonly result: DeliveryResult,
  ) {
    super(message);
    this.name = 'WebhookDeliveryError';
  }
}

/**
 * POSTs `body` signed for `secret`, under the outbound pin (outbound.ts). `msgId` is the same on every retry of one
 * continuation, so a receiver that saw it before can drop the duplicate; the timestamp is fresh on each attempt, as
 * receivers reject stale ones. Resolves with the response (status and body text) on 2xx; throws WebhookDeliveryError otherwise —
 * a target the pin refuses included, so the refusal is a failed attempt like an unreachable host.
 */
export async function postWebhook(
  url: string,
  secret: string,
  msgId: string,
  body: string,
  policy: OutboundPolicy,
  timeoutMs = 10_000,
): Promise<PostResult> {
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
    if (error instanceof OutboundRefusedError)
      throw new WebhookDeliveryError(
        url,
        null,
        `webhook to ${originOf(url)} refused: ${why} (ASKGATE_WEBHOOK_ALLOW_PRIVATE lifts this for development)`,
        { outcome: 'refused', reason: error.reason },
      );
    throw new WebhookDeliveryError(url, null, `webhook to ${originOf(url)} unreachable: ${networkErrorCode(error)}`, {
      outcome: 'network_error',
      error: networkErrorCode(error),
    });
  }
  if (response.status < 200 || response.status > 299) {
    throw new WebhookDeliveryError(
      url,
      response.status,
      `webhook to ${originOf(url)} answered ${response.status}; it is retried until 2xx.`,
      { outcome: 'http_error', status: response.status },
    );
  }
  return response;
}

/**
 * The part of a webhook URL a message may show: its origin. The path and query of a caller's URL often carry a
 * key (`/hooks/<token>`, `?key=…`), and these messages reach the worker's log.
 */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an unparsable URL)';
  }
}

/**
 * A network failure's code (ECONNREFUSED, ECONNRESET, ENOTFOUND, …), or `timeout` when the attempt's time ran out
 * (the request's abort signal is its timeout and nothing else). Only a code of the usual shape is passed on; the
 * message is not, as it may quote the URL.
 */
export function networkErrorCode(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown } | null;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError' || e?.code === 'ABORT_ERR') return 'timeout';
  return typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]{1,39}$/.test(e.code) ? e.code : 'unknown';
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
