import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { verifyStripeSignature } from '../../src/verifiers/stripe-signature.js';
import { stripeSignature } from '../fakes/stripe-server.js';

/**
 * The one Stripe signature check (the ingress's and the `stripe` verifier's), against headers signed by the real
 * stripe package (`webhooks.generateTestHeaderString`, what Stripe's own tests sign with): several secrets while one
 * is rolled, the 300 s tolerance either way with its edges, the refusals worded with the header and the variable,
 * never a secret. The loopback fake's signer is checked against the package's here too.
 */

const stripe = new Stripe('sk_test_signature_check');
const OLD = 'whsec_signature_check_old_secret';
const NEW = 'whsec_signature_check_new_secret';
const payload = JSON.stringify({ id: 'evt_sig_1', object: 'event', type: 'checkout.session.completed' });
const now = Date.UTC(2030, 0, 1, 12, 0, 0);
const nowSeconds = now / 1000;

const sign = (secret: string, timestamp = nowSeconds, body = payload): string =>
  stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });

const check = (header: string | string[] | undefined, secrets: string[] = [OLD, NEW], body = payload) =>
  verifyStripeSignature({
    rawBody: Buffer.from(body),
    header,
    secrets,
    secretName: 'STRIPE_WEBHOOK_SECRET',
    toleranceSeconds: 300,
    now,
  });

describe('the one Stripe signature check', () => {
  it('accepts a delivery signed by either listed secret: the rotated-in second one as well as the first', () => {
    expect(check(sign(NEW))).toEqual({ ok: true });
    expect(check(sign(OLD))).toEqual({ ok: true });
    expect(check(sign(NEW), [NEW])).toEqual({ ok: true });
    // The header Stripe sends while rolling: one v1 per active secret.
    const both = `t=${nowSeconds},${sign(OLD).split(',')[1]},${sign(NEW).split(',')[1]}`;
    expect(check(both, [NEW])).toEqual({ ok: true });
  });

  it('refuses a signature by a secret not listed, or over other bytes, naming the header and the variable only', () => {
    const forged = check(sign('whsec_someone_else'));
    expect(forged).toEqual({ ok: false, reason: 'the Stripe-Signature does not match STRIPE_WEBHOOK_SECRET.' });
    expect(check(sign(OLD), [NEW])).toEqual(forged);
    expect(check(sign(NEW), [OLD, NEW], `${payload}\n`)).toEqual(forged);
    for (const verdict of [forged, check(sign(NEW, nowSeconds - 301))])
      if (!verdict.ok) for (const secret of [OLD, NEW]) expect(verdict.reason).not.toContain(secret);
  });

  it('takes a timestamp up to 300 s either side of now, and refuses one outside the tolerance', () => {
    expect(check(sign(NEW, nowSeconds - 300))).toEqual({ ok: true });
    expect(check(sign(NEW, nowSeconds + 300))).toEqual({ ok: true });
    expect(check(sign(NEW, nowSeconds - 301))).toEqual({
      ok: false,
      reason: 'the Stripe-Signature timestamp is older than 300 s, outside the tolerance.',
    });
    expect(check(sign(NEW, nowSeconds + 301))).toEqual({
      ok: false,
      reason: 'the Stripe-Signature timestamp is more than 300 s in the future, outside the tolerance.',
    });
  });

  it('refuses a missing, repeated or malformed header, and a header with a second timestamp', () => {
    expect(check(undefined)).toEqual({ ok: false, reason: 'the Stripe-Signature header is missing.' });
    expect(check('')).toEqual({ ok: false, reason: 'the Stripe-Signature header is missing.' });
    expect(check([sign(NEW), sign(NEW)])).toEqual({
      ok: false,
      reason: 'the Stripe-Signature header was sent more than once.',
    });
    const noStamp = { ok: false, reason: 'the Stripe-Signature header has no single timestamp (t=).' };
    expect(check('v1=abc')).toEqual(noStamp);
    expect(check(`t=soon,${sign(NEW).split(',')[1]}`)).toEqual(noStamp);
    // stripe-node signs over the last t=, a reader of the first would check another's age: refused outright.
    expect(check(`${sign(NEW)},t=${nowSeconds + 3600}`)).toEqual(noStamp);
    expect(check(`t=${nowSeconds}`)).toEqual({
      ok: false,
      reason: 'the Stripe-Signature does not match STRIPE_WEBHOOK_SECRET.',
    });
  });

  it('cannot run without a secret: it throws, naming the variable (the door answers 503 or 500, not 401)', () => {
    expect(() => check(sign(NEW), [])).toThrow('STRIPE_WEBHOOK_SECRET is not set');
  });

  it('agrees with the loopback fake: the fake signs exactly as the stripe package does', () => {
    expect(stripeSignature(payload, NEW, nowSeconds)).toBe(sign(NEW));
  });
});
