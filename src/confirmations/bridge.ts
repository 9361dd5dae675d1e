import { backoffDelay } from '../queue/queues.js';
import { BRIDGE_SECRET_ENV, BRIDGE_SECRET_HEADER } from '../verifiers/shared-secret.js';
import type { CompletedConfirmation } from './providers/types.js';

/**
 * The bridge: turns a provider's completed confirmation into the answer of the question it names, by POSTing
 * `{"answer": {"decision": "confirmed", "reference": ...}}` with `X-TAI-Bridge-Secret` to the question's callback
 * URL. The callback door's `shared_secret` verifier checks the secret and the question's const pin checks the
 * payload, so the bridge itself decides only what it may send and where.
 */

/** Retry ladder: five retries after the first try, 0.5 s base doubling with jitter, Retry-After up to 90 s. */
export const BRIDGE_RETRIES = 5;
export const BRIDGE_BASE_DELAY_MS = 500;
export const MAX_RETRY_AFTER_MS = 90_000;
const POST_TIMEOUT_MS = 10_000;

/** Statuses worth another try; every other non-2xx (400, 401, 403, 404, …) is a verdict no retry changes. */
function retryable(status: number | null): boolean {
  return status === null || status >= 500 || status === 408 || status === 429;
}

export interface BridgeSettings {
  /** `INTERACTIONS_PUBLIC_BASE_URL`: the only origin the bridge POSTs to (the SSRF pin). */
  publicBaseUrl: string | null;
  /** `TAI_BRIDGE_CALLBACK_SECRET`. */
  secret: string | null;
}

/** Why one delivery did not answer. `status` is the door's (null: refused before sending, or no response). */
export class BridgeFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    /** The door's Retry-After, capped at 90 s, when it sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'BridgeFailure';
  }
}

export type BridgeVerdict = 'answered' | 'already_answered';

/** The callback door prefix on the public origin; the bridge POSTs nowhere else. */
function callbackPrefix(publicBaseUrl: string): string {
  return `${publicBaseUrl}/api/interactions/callback/`;
}

/**
 * Refusals before anything is sent: a decision other than `confirmed`, a callback URL off the public origin (or off
 * its callback door), a missing secret. Each is final. The URL is never put in a message: it holds a ticket.
 */
export function refusalOf(confirmation: CompletedConfirmation, settings: BridgeSettings): string | null {
  if (confirmation.decision !== 'confirmed')
    return `session ${confirmation.session} has decision "${confirmation.decision}"; the bridge answers only "confirmed".`;
  if (settings.publicBaseUrl === null)
    return 'INTERACTIONS_PUBLIC_BASE_URL is not set on this process; the bridge has no origin to pin callbacks to.';
  let origin: string;
  try {
    origin = new URL(confirmation.callbackUrl).origin;
  } catch {
    return `session ${confirmation.session} carries a callback URL that is not a URL.`;
  }
  if (
    origin !== new URL(settings.publicBaseUrl).origin ||
    !confirmation.callbackUrl.startsWith(callbackPrefix(settings.publicBaseUrl))
  )
    return `session ${confirmation.session} carries a callback URL on ${origin}, not on INTERACTIONS_PUBLIC_BASE_URL's callback door; refused (SSRF pin).`;
  if (settings.secret === null)
    return `${BRIDGE_SECRET_ENV} is not set on this process; the bridge cannot authenticate to the callback door.`;
  return null;
}

function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - nowMs;
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  return Math.min(seconds, MAX_RETRY_AFTER_MS);
}

/** One delivery attempt. Resolves with the door's verdict; rejects with a `BridgeFailure`. */
export async function postConfirmation(
  confirmation: CompletedConfirmation,
  settings: BridgeSettings,
): Promise<BridgeVerdict> {
  const refusal = refusalOf(confirmation, settings);
  if (refusal !== null) throw new BridgeFailure(refusal, null, false);
  const body = JSON.stringify({ answer: { decision: 'confirmed', reference: confirmation.reference } });
  let response: Response;
  try {
    response = await fetch(confirmation.callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [BRIDGE_SECRET_HEADER]: settings.secret as string },
      body,
      redirect: 'manual', // a redirect would leave the pinned origin
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
  } catch (err) {
    // fetch says "fetch failed"; the reason (ECONNREFUSED, a timeout) is in its cause.
    const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : err instanceof Error
            ? err.message
            : String(err);
    throw new BridgeFailure(`session ${confirmation.session}: the callback door is unreachable (${why}).`, null, true);
  }
  const text = await response.text().catch(() => '');
  if (response.status === 200) {
    let status: unknown;
    try {
      status = (JSON.parse(text) as { status?: unknown }).status;
    } catch {
      status = undefined;
    }
    if (status === 'answered' || status === 'already_answered') return status;
    throw new BridgeFailure(
      `session ${confirmation.session}: the callback door answered 200 without a verdict.`,
      200,
      false,
    );
  }
  let code = '';
  try {
    code = String((JSON.parse(text) as { error?: unknown }).error ?? '');
  } catch {
    // not JSON: a proxy's page
  }
  throw new BridgeFailure(
    `session ${confirmation.session}: the callback door answered ${response.status}${code === '' ? '' : ` ${code}`}.`,
    response.status,
    retryable(response.status),
    retryAfterMs(response.headers.get('retry-after'), Date.now()),
  );
}

/** How long to wait before retry `retry` (1-based) after `failure`: its Retry-After, else the jittered ladder. */
export function retryDelayMs(retry: number, failure: unknown): number {
  if (failure instanceof BridgeFailure && failure.retryAfterMs !== null) return failure.retryAfterMs;
  return backoffDelay(retry, BRIDGE_BASE_DELAY_MS);
}

/**
 * The whole ladder in this process (reconcile, which needs each verdict before it moves on): the first try and up
 * to five retries of a retryable failure. Rejects with the last `BridgeFailure`.
 */
export async function deliverNow(
  confirmation: CompletedConfirmation,
  settings: BridgeSettings,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<BridgeVerdict> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await postConfirmation(confirmation, settings);
    } catch (err) {
      if (!(err instanceof BridgeFailure) || !err.retryable || retry >= BRIDGE_RETRIES) throw err;
      await sleep(retryDelayMs(retry + 1, err));
    }
  }
}
