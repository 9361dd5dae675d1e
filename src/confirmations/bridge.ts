import { answerFromJson } from '../callback/answer-body.js';
import type { CallbackService } from '../core/callback-service.js';
import { AskgateError, type ErrorCode } from '../core/errors.js';
import { BRIDGE_SECRET_ENV, BRIDGE_SECRET_HEADER } from '../verifiers/shared-secret.js';
import { BRIDGE_RETRIES, bridgeRetryDelayMs } from './ladder.js';
import type { CompletedConfirmation } from './providers/types.js';

/**
 * The bridge: turns a provider's completed confirmation into the answer of the question it names, in process,
 * through the core's callback service — the same rules the public callback door runs, without an HTTP round trip
 * to askgate itself. The callback URL the provider carried back still names the ticket, so it is pinned as before
 * (on `INTERACTIONS_PUBLIC_BASE_URL`, under the callback door); the answer is presented as the door would receive
 * it (the envelope `{"answer": {"decision": "confirmed", "reference": ...}}` with `X-TAI-Bridge-Secret`), so the
 * `shared_secret` verifier bound to the question still checks the bridge secret and the const pin the payload.
 * The outcome comes back as data, never as a status parsed out of a response.
 */

export interface BridgeSettings {
  /** `INTERACTIONS_PUBLIC_BASE_URL`: the only origin a callback URL may be on (the SSRF-style pin). */
  publicBaseUrl: string | null;
  /** `TAI_BRIDGE_CALLBACK_SECRET`: what the bridge presents to the question's verifier. */
  secret: string | null;
}

/**
 * What one delivery came to. `answered` and `already_answered` are done; `expired` (the door's 404: the ticket no
 * longer resolves), `rejected` (the door's 400: the pin or schema refused the payload) and `refused` (the door's
 * 401 or 403, or the bridge's own refusals: decision, pin, secret) are verdicts no retry changes; `transient` (what
 * the door answers with 5xx: the store unreachable, the verifier unable to run, an unexpected error) is retried.
 */
export type BridgeOutcome =
  | { kind: 'answered' }
  | { kind: 'already_answered' }
  | { kind: 'expired'; reason: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'transient'; reason: string };

/** The callback door prefix on the public origin; the bridge answers no other URL. */
function callbackPrefix(publicBaseUrl: string): string {
  return `${publicBaseUrl}/api/interactions/callback/`;
}

/**
 * Refusals before anything is read: a decision other than `confirmed`, a callback URL off the public origin (or off
 * its callback door), a missing secret. Each is final. The URL is never put in a message: it holds a ticket.
 */
export function refusalOf(confirmation: CompletedConfirmation, settings: BridgeSettings): string | null {
  const { session } = confirmation;
  if (confirmation.decision !== 'confirmed')
    return `session ${session} has decision "${confirmation.decision}"; the bridge answers only "confirmed".`;
  if (settings.publicBaseUrl === null)
    return 'INTERACTIONS_PUBLIC_BASE_URL is not set on this process; the bridge has no origin to pin callbacks to.';
  let origin: string;
  try {
    origin = new URL(confirmation.callbackUrl).origin;
  } catch {
    return `session ${session} carries a callback URL that is not a URL.`;
  }
  if (
    origin !== new URL(settings.publicBaseUrl).origin ||
    !confirmation.callbackUrl.startsWith(callbackPrefix(settings.publicBaseUrl))
  )
    return (
      `session ${session} carries a callback URL on ${origin}, not on INTERACTIONS_PUBLIC_BASE_URL's callback door; ` +
      'refused (SSRF pin).'
    );
  if (settings.secret === null)
    return `${BRIDGE_SECRET_ENV} is not set on this process; the bridge cannot authenticate to the question's verifier.`;
  return null;
}

/**
 * The ticket a pinned callback URL names: the one path segment after the callback door, percent-decoded as the
 * door's router decodes it (a query or fragment is not part of it, as on the door). A further segment or a bad
 * escape names no ticket: null, which the service reports as the door's 404, as the door would.
 */
function ticketOf(callbackUrl: string, publicBaseUrl: string): string | null {
  const door = new URL(callbackPrefix(publicBaseUrl)).pathname;
  const path = new URL(callbackUrl).pathname;
  const rest = path.startsWith(door) ? path.slice(door.length) : '';
  if (rest === '' || rest.includes('/')) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
}

/** Codes the door answers with 5xx (or 429): a later try may succeed. Every other code is a verdict. */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'verifier_unavailable',
  'store_unavailable',
  'internal_error',
  'not_configured',
  'not_implemented',
  'rate_limited',
]);

/** A refusal of the callback service as the bridge's outcome: which door status it stands for, as data. */
function outcomeOfError(session: string, err: unknown): BridgeOutcome {
  if (!(err instanceof AskgateError)) {
    // The store unreachable (a connection error), or a bug: the door would have answered 500.
    const why = err instanceof Error ? err.message : String(err);
    return { kind: 'transient', reason: `session ${session}: the callback service failed (${why}).` };
  }
  const reason = `session ${session}: ${err.code} — ${err.message}`;
  if (err.code === 'not_found') return { kind: 'expired', reason };
  if (err.code === 'invalid_answer' || err.code === 'invalid_request' || err.code === 'invalid_json')
    return { kind: 'rejected', reason };
  if (TRANSIENT.has(err.code)) return { kind: 'transient', reason };
  return { kind: 'refused', reason };
}

/** One delivery attempt, in process. Never throws: every way it can end is an outcome. */
export async function answerConfirmation(
  confirmation: CompletedConfirmation,
  settings: BridgeSettings,
  callbacks: CallbackService,
): Promise<BridgeOutcome> {
  const refusal = refusalOf(confirmation, settings);
  if (refusal !== null) return { kind: 'refused', reason: refusal };
  const envelope = { answer: { decision: 'confirmed', reference: confirmation.reference } };
  // What the door would have received: the verifier bound to the question reads these bytes and headers.
  const request = {
    rawBody: Buffer.from(JSON.stringify(envelope)),
    headers: { 'content-type': 'application/json', [BRIDGE_SECRET_HEADER.toLowerCase()]: settings.secret as string },
  };
  try {
    const ticket = ticketOf(confirmation.callbackUrl, settings.publicBaseUrl as string);
    const state = ticket === null ? ({ kind: 'unknown' } as const) : await callbacks.lookup(ticket);
    const verdict = await callbacks.submit(state, request, (record) => answerFromJson(record, envelope));
    if (verdict === 'voted')
      return {
        kind: 'refused',
        reason: `session ${confirmation.session}: the question counts votes; a bridge answer decides nothing.`,
      };
    return { kind: verdict };
  } catch (err) {
    return outcomeOfError(confirmation.session, err);
  }
}

/**
 * The whole ladder in this process (reconcile, which needs each verdict before it moves on): the first try and up
 * to five retries of a transient outcome, `sleep` between them (injected: a test passes its own). Returns the
 * last outcome.
 */
export async function deliverNow(
  confirmation: CompletedConfirmation,
  settings: BridgeSettings,
  callbacks: CallbackService,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<BridgeOutcome> {
  for (let retry = 0; ; retry += 1) {
    const outcome = await answerConfirmation(confirmation, settings, callbacks);
    if (outcome.kind !== 'transient' || retry >= BRIDGE_RETRIES) return outcome;
    await sleep(bridgeRetryDelayMs(retry + 1));
  }
}
