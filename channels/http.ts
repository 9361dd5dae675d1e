import type { VerifyResult } from '../src/core/verify-result.js';

/**
 * A channel's webhooks, framework-free: a request is plain data (method, path, query, headers, the raw bytes) and so
 * is the response. The gateway adapts its HTTP server to these (channels/mount.ts); a channel never sees express.
 * The one verify shape lives here too, so every channel's verify.ts has the same signature.
 */

/** Header values as Node gives them: lower-cased names, a repeated header as a list. */
export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One inbound webhook request, as the platform sent it. */
export interface WebhookRequest {
  method: 'GET' | 'POST';
  /** The path without the query string, e.g. `/channels/telegram/webhook`. */
  path: string;
  /** The query string's parameters (the first value of a repeated one). */
  query: Readonly<Record<string, string>>;
  headers: WebhookHeaders;
  /** The exact bytes received: signatures are over these, so nothing parses them before `verify`. */
  rawBody: Buffer;
  /** The path with its query string exactly as requested (`/channels/twilio/sms?x=1`). */
  url: string;
}

/** A response body: a string or bytes are sent as they are, anything else as JSON. */
export type WebhookBody = string | Buffer | Record<string, unknown>;

/** What a webhook answers. */
export interface WebhookResponse {
  status: number;
  /** Extra response headers, e.g. `content-type` for a string body (default `text/plain; charset=utf-8`). */
  headers?: Readonly<Record<string, string>>;
  body?: WebhookBody;
}

/** One door a channel serves: the gateway mounts every declared route without knowing the channel. */
export interface WebhookRoute {
  method: 'GET' | 'POST';
  path: string;
  /** The largest body accepted (bytes); a larger one is refused with 413 before the handler runs. Default 1 MiB. */
  maxBodyBytes?: number;
  handle(request: WebhookRequest): Promise<WebhookResponse>;
}

/**
 * What every channel's `verify` reads: the secret it was configured with, the raw body, the headers, the URL the
 * platform called (its public form when the gateway knows INTERACTIONS_PUBLIC_BASE_URL, else the path) and now.
 */
export interface VerifyInput {
  secret: string;
  rawBody: Buffer | string;
  headers: WebhookHeaders;
  /** The URL the platform signed, when its signature covers one (Twilio); channels that sign only the body ignore it. */
  url?: string;
  /** Now, in milliseconds since the epoch; injected so a staleness rule is testable without a clock. */
  now: number;
}

/**
 * A verdict: accepted, or refused with a reason that names the header (never the secret). The one verdict shape of
 * askgate, defined by the core (the bound verifiers and the Stripe ingress return it too); a type-only re-export,
 * erased at build, so this module still loads nothing of the core.
 */
export type { VerifyResult };

/**
 * The one shape of every channel's `verify`: no core, no express. Most are pure functions of their input and answer
 * at once. A platform whose signing keys must be fetched (a JWT checked against a JWKS, the keys cached and fetched
 * again for an unknown key id) resolves the same verdict later; the pipeline awaits either before it parses a byte.
 * A refusal is the verdict `{ok: false}`; a check that cannot run at all (the keys cannot be fetched) rejects, and
 * the door answers 500 `verifier_unavailable` so the platform retries — in neither case does anything change.
 */
export type Verify = (input: VerifyInput) => VerifyResult | Promise<VerifyResult>;

export const ACCEPTED: VerifyResult = { ok: true };
export const refused = (reason: string): VerifyResult => ({ ok: false, reason });

/** The first value of a header. */
export function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** The raw body as text. */
export const textOf = (rawBody: Buffer | string): string =>
  typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');

/**
 * A body that verified but is not what the platform sends: the pipeline answers 400 naming it. Every channel's
 * parser throws this one class (or a subclass).
 */
export class MalformedWebhook extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedWebhook';
  }
}

/** A JSON response. */
export const json = (status: number, body: Record<string, unknown>): WebhookResponse => ({ status, body });

/** A text response of the given content type. */
export const text = (status: number, body: string, contentType = 'text/plain; charset=utf-8'): WebhookResponse => ({
  status,
  headers: { 'content-type': contentType },
  body,
});
