import type { IncomingHttpHeaders } from 'node:http';
import type { VerifyResult } from '../../core/verify-result.js';

/**
 * An outside system that confirms things (a payment page, a signature page): what askgate needs of it to open a
 * confirmation, to take its signed events, and to reconcile. A second provider is one file beside `stripe.ts`
 * plus a line in `index.ts`.
 */

/** What a confirmation preset asks the provider to open. */
export interface OpenConfirmation {
  /** The question's callback URL: the provider carries it back in its event's metadata. A live capability. */
  callbackUrl: string;
  /** The literal the answer is pinned to. */
  reference: string;
  /** Where the party lands after acting (no effect on askgate). */
  returnUrl: string;
  /** Provider-specific items, passed as the preset wrote them. */
  lineItems: unknown[];
}

/** The provider's resource the party acts on. */
export interface OpenedConfirmation {
  /** The provider's id of it, e.g. a Checkout Session id. */
  id: string;
  /** The URL the party visits. */
  url: string;
}

/** A confirmation the provider reports done (from an event or a list), carrying askgate's metadata. */
export interface CompletedConfirmation {
  /** The provider's id of the resource (a Checkout Session id). */
  session: string;
  callbackUrl: string;
  reference: string;
  /** `confirmed` when the party completed it; any other word (e.g. `unpaid`) is refused by the bridge. */
  decision: string;
}

/** A signed event after its signature was checked: `signedAtSeconds` is its signature's timestamp. */
export type ProviderEvent =
  | { kind: 'confirmation'; eventId: string; signedAtSeconds: number; confirmation: CompletedConfirmation }
  | { kind: 'ignored'; eventId: string; signedAtSeconds: number; reason: string };

/** The provider cannot be used on this deployment (its variables are unset); the door answers 503. */
export class ProviderNotConfigured extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderNotConfigured';
  }
}

export interface ConfirmationProvider {
  /** The preset's `confirmation.provider` value, e.g. `stripe_checkout`. */
  readonly name: string;
  /** The path of its ingress door, e.g. `/webhooks/stripe`. */
  readonly ingressPath: string;
  /** How long (s) a signed event stays acceptable after its timestamp; the seen-set keeps ids that long. */
  readonly toleranceSeconds: number;
  /** Whether any of its settings is set on this gateway: only then do the workers run its bridge and reconcile. */
  inUse(): boolean;
  /** Why this deployment cannot open confirmations with it (a variable unset), or null when it can. */
  unavailable(): string | null;
  /** Opens the resource the party acts on. */
  open(request: OpenConfirmation): Promise<OpenedConfirmation>;
  /** The completed confirmations created at or after `sinceMs` that carry askgate's metadata. */
  listCompleted(sinceMs: number): Promise<CompletedConfirmation[]>;
  /**
   * The signature's verdict on a delivery to the ingress (refused: the door answers 401 with the reason); throws
   * `ProviderNotConfigured` (503) when this deployment has no secret to check it with.
   */
  verifyEvent(rawBody: Buffer, headers: IncomingHttpHeaders, nowMs: number): VerifyResult;
  /** Reads an event `verifyEvent` accepted; a body that is not a JSON event is refused with 400. */
  readEvent(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderEvent;
}
