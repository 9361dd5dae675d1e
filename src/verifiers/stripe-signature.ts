import Stripe from 'stripe';
import { ACCEPTED, refused, type VerifyResult } from '../core/verify-result.js';

/**
 * The one Stripe signature check, used by the Stripe ingress (`POST /webhooks/stripe`) and by the `stripe` verifier
 * a question may be bound to. The signature itself is the `stripe` package's (`webhooks.signature.verifyHeader`):
 * HMAC-SHA256 over `${t}.${body}`, every `v1` in the header compared in constant time (Stripe sends one per active
 * secret while a secret is rolled), the age checked against the tolerance. What askgate adds around it:
 * - several secrets (a comma-separated variable, so a new secret can be listed before the old one is rolled): the
 *   header is accepted when any of them signed it;
 * - the tolerance in both directions: stripe-node refuses only a timestamp older than the tolerance, and a timestamp
 *   far in the future would keep a signed body replayable (and its seen-set entry alive) for as long;
 * - reasons that name the header and the variable holding the secret, never the secret or stripe-node's wording.
 */

/** Stripe's own freshness window for signed events, in seconds. */
export const STRIPE_TOLERANCE_SECONDS = 300;
/** The header Stripe signs with. */
export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';

export interface StripeSignatureInput {
  /** The exact bytes received. */
  rawBody: Buffer;
  /** The `Stripe-Signature` header as received (a repeated header arrives as a list and is refused). */
  header: string | string[] | undefined;
  /** Every secret accepted; an empty list means the check cannot run (the caller reports its variable unset). */
  secrets: readonly string[];
  /** The variable the secrets come from, for the reason of a mismatch (e.g. `STRIPE_WEBHOOK_SECRET`). */
  secretName: string;
  /** Seconds either side of now a timestamp may be. */
  toleranceSeconds: number;
  /** Now, epoch ms. */
  now: number;
}

/**
 * The `t=` of a Stripe-Signature header, in epoch seconds: split as stripe-node splits it (`,` then `=`), so both
 * read the same timestamp. Null unless there is exactly one, a plain number: with two, stripe-node would sign over
 * the last while a reader of the first checked another's age.
 */
export function signedAtOf(header: string): number | null {
  const stamps = header.split(',').filter((item) => item.split('=')[0] === 't');
  if (stamps.length !== 1) return null;
  const value = (stamps[0] as string).slice(2);
  return /^\d{1,12}$/.test(value) ? Number(value) : null;
}

const webhookSignature = (() => {
  const signature = Stripe.webhooks.signature;
  if (signature === null) throw new Error('the stripe package has no webhook signature helper.');
  return signature;
})();

/** Checks a Stripe-Signature header against `secrets`. Throws only when there is no secret to check with. */
export function verifyStripeSignature(input: StripeSignatureInput): VerifyResult {
  if (input.secrets.length === 0)
    throw new Error(`${input.secretName} is not set; the Stripe signature cannot be checked.`);
  const { header, toleranceSeconds } = input;
  if (Array.isArray(header)) return refused(`the ${STRIPE_SIGNATURE_HEADER} header was sent more than once.`);
  if (header === undefined || header === '') return refused(`the ${STRIPE_SIGNATURE_HEADER} header is missing.`);
  const signedAt = signedAtOf(header);
  if (signedAt === null) return refused(`the ${STRIPE_SIGNATURE_HEADER} header has no single timestamp (t=).`);
  const age = Math.floor(input.now / 1000) - signedAt;
  if (age > toleranceSeconds)
    return refused(
      `the ${STRIPE_SIGNATURE_HEADER} timestamp is older than ${toleranceSeconds} s, outside the tolerance.`,
    );
  if (-age > toleranceSeconds)
    return refused(
      `the ${STRIPE_SIGNATURE_HEADER} timestamp is more than ${toleranceSeconds} s in the future, outside the tolerance.`,
    );
  for (const secret of input.secrets) {
    try {
      webhookSignature.verifyHeader(input.rawBody, header, secret, toleranceSeconds, undefined, input.now);
      return ACCEPTED;
    } catch (err) {
      // Not this secret (or no v1 signature at all): try the next one. Anything else is a check that cannot run.
      if (!(err instanceof Stripe.errors.StripeSignatureVerificationError)) throw err;
    }
  }
  return refused(`the ${STRIPE_SIGNATURE_HEADER} does not match ${input.secretName}.`);
}
