import type { IncomingHttpHeaders } from 'node:http';
import Stripe from 'stripe';
import { invalid } from '../../core/errors.js';
import type { VerifyResult } from '../../core/verify-result.js';
import { signedAtOf, STRIPE_TOLERANCE_SECONDS, verifyStripeSignature } from '../../verifiers/stripe-signature.js';
import type { StripeConfig } from '../config.js';
import {
  type CompletedConfirmation,
  type ConfirmationProvider,
  type OpenConfirmation,
  type OpenedConfirmation,
  type ProviderEvent,
  ProviderNotConfigured,
} from './types.js';
/** The metadata key carrying the question's callback URL on a Checkout Session. */
export const CALLBACK_METADATA = 'askgate_callback_url';

type Session = Stripe.Checkout.Session;

/** The client for `STRIPE_API_URL`: stripe-node takes the base as host, port and protocol, not as one URL. */
function clientFor(config: StripeConfig): Stripe | null {
  if (config.secretKey === null) return null;
  const url = new URL(config.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(config.secretKey, {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
    protocol,
    maxNetworkRetries: 2,
    telemetry: false,
  });
}

/** The confirmation a completed session carries, or null when it carries no askgate callback URL. */
export function confirmationOf(session: Session | undefined): CompletedConfirmation | null {
  // A signed event is still data: an odd shape is "not a confirmation", never a crash.
  if (session === null || typeof session !== 'object' || typeof session.id !== 'string') return null;
  const callbackUrl = session.metadata?.[CALLBACK_METADATA];
  if (typeof callbackUrl !== 'string' || callbackUrl === '') return null;
  const reference = session.client_reference_id ?? session.metadata?.['reference'] ?? '';
  if (typeof reference !== 'string') return null;
  // A completed session is confirmed once it is paid (or needs no payment); an async method may still be unpaid.
  const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
  return { session: session.id, callbackUrl, reference, decision: paid ? 'confirmed' : session.payment_status };
}

/**
 * Stripe Checkout through the real `stripe` package: a preset's confirmation opens a Checkout Session, the ingress
 * takes `checkout.session.completed`, and reconcile lists completed sessions.
 */
export class StripeCheckoutProvider implements ConfirmationProvider {
  readonly name = 'stripe_checkout';
  readonly ingressPath = '/webhooks/stripe';
  readonly toleranceSeconds = STRIPE_TOLERANCE_SECONDS;
  private readonly stripe: Stripe | null;

  constructor(private readonly config: StripeConfig) {
    this.stripe = clientFor(config);
  }

  inUse(): boolean {
    return this.config.secretKey !== null || this.config.webhookSecrets.length > 0;
  }

  unavailable(): string | null {
    return this.stripe === null ? 'STRIPE_SECRET_KEY is not set on this gateway; an operator must set it.' : null;
  }

  private client(): Stripe {
    const why = this.unavailable();
    if (why !== null || this.stripe === null) throw new ProviderNotConfigured(why ?? 'no Stripe client.');
    return this.stripe;
  }

  async open(request: OpenConfirmation): Promise<OpenedConfirmation> {
    const session = await this.client().checkout.sessions.create({
      mode: 'payment',
      // The preset's items go to Stripe as written; Stripe checks them and refuses with its own message.
      line_items: request.lineItems as Stripe.Checkout.SessionCreateParams.LineItem[],
      success_url: request.returnUrl,
      client_reference_id: request.reference,
      metadata: { [CALLBACK_METADATA]: request.callbackUrl, reference: request.reference },
    });
    if (session.url === null) throw new Error(`Stripe created session ${session.id} without a URL.`);
    return { id: session.id, url: session.url };
  }

  async listCompleted(sinceMs: number): Promise<CompletedConfirmation[]> {
    const found: CompletedConfirmation[] = [];
    // stripe-node pages through starting_after / has_more itself.
    const pages = this.client().checkout.sessions.list({
      created: { gte: Math.floor(sinceMs / 1000) },
      status: 'complete',
      limit: 100,
    });
    for await (const session of pages) {
      const confirmation = confirmationOf(session);
      if (confirmation !== null && confirmation.decision === 'confirmed') found.push(confirmation);
    }
    return found;
  }

  verifyEvent(rawBody: Buffer, headers: IncomingHttpHeaders, nowMs: number): VerifyResult {
    if (this.config.webhookSecrets.length === 0)
      throw new ProviderNotConfigured('STRIPE_WEBHOOK_SECRET is not set on this gateway; an operator must set it.');
    // The one Stripe check (the stripe package's), against every configured secret: several while one is rolled.
    return verifyStripeSignature({
      rawBody,
      header: headers['stripe-signature'],
      secrets: this.config.webhookSecrets,
      secretName: 'STRIPE_WEBHOOK_SECRET',
      toleranceSeconds: this.toleranceSeconds,
      now: nowMs,
    });
  }

  readEvent(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderEvent {
    let event: Stripe.Event;
    try {
      event = JSON.parse(rawBody.toString('utf8')) as Stripe.Event;
    } catch {
      throw invalid('body', 'the signed body is not a JSON Stripe event.');
    }
    if (event === null || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.type !== 'string')
      throw invalid('body', 'the signed body is not a Stripe event (it needs an id and a type).');
    // Verified already: the header has exactly one timestamp.
    const base = { eventId: event.id, signedAtSeconds: signedAtOf(String(headers['stripe-signature'])) ?? 0 };
    // A delayed payment method completes the session unpaid, and Stripe sends async_payment_succeeded once it pays.
    if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded')
      return { kind: 'ignored', ...base, reason: `${event.type} events are not confirmations; ignored.` };
    const confirmation = confirmationOf((event.data as { object?: Session } | undefined)?.object);
    if (confirmation === null)
      return { kind: 'ignored', ...base, reason: `the session carries no ${CALLBACK_METADATA} metadata; ignored.` };
    return { kind: 'confirmation', ...base, confirmation };
  }
}
