import { createHmac, timingSafeEqual } from 'node:crypto';
import type { VerifierBinding } from '../core/types.js';
import { singleHeader, VerificationFailed, type Verifier } from './types.js';

/** Stripe's own default freshness window. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Variables a binding may never name: askgate's own configuration is not a webhook signing secret. */
const FORBIDDEN_SECRET_ENVS =
  /^(ASKGATE_|REDIS_URL$|TAI_BRIDGE_CALLBACK_SECRET$|INTERACTIONS_|TELEGRAM_|SLACK_|WHATSAPP_|TWILIO_|PATH$|HOME$|HOST$|PORT$)/;

interface StripeBinding {
  secretEnv: string;
  toleranceSeconds: number;
}

function readBinding(binding: VerifierBinding): StripeBinding | string {
  const extra = Object.keys(binding).find((k) => !['name', 'secret_env', 'tolerance_seconds'].includes(k));
  if (extra !== undefined)
    return `the stripe verifier takes secret_env and tolerance_seconds; "${extra}" is not one of them.`;
  const secretEnv = binding['secret_env'];
  if (typeof secretEnv !== 'string' || !/^[A-Z][A-Z0-9_]{0,127}$/.test(secretEnv)) {
    return 'the stripe verifier needs secret_env: the name of the variable holding the endpoint signing secret, e.g. "STRIPE_WEBHOOK_SECRET".';
  }
  // Naming askgate's own variables would let an asker probe them through signatures it chooses.
  if (FORBIDDEN_SECRET_ENVS.test(secretEnv))
    return `secret_env "${secretEnv}" names one of askgate's own variables; name the Stripe signing secret's variable.`;
  const tolerance = binding['tolerance_seconds'] ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isInteger(tolerance) || tolerance < 1 || tolerance > 3600) {
    return 'tolerance_seconds must be a whole number of seconds from 1 to 3600.';
  }
  return { secretEnv, toleranceSeconds: tolerance };
}

/** `t=…,v1=…,v1=…` → the timestamp and every v1 signature (other schemes, like v0, are ignored as Stripe does). */
function parseHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null) throw new VerificationFailed('the Stripe-Signature header has no timestamp.');
  if (signatures.length === 0) throw new VerificationFailed('the Stripe-Signature header has no v1 signature.');
  return { timestamp, signatures };
}

/**
 * `stripe`: Stripe's webhook signature. `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]` where each v1 is
 * HMAC-SHA256(secret, `${t}.${rawBody}`). Several v1 are accepted (Stripe sends one per active secret while an
 * endpoint secret is rolled); the timestamp must be within `tolerance_seconds` (default 300) of now, either way.
 * The secret is read from the variable the binding's `secret_env` names; unset, the verifier cannot run (500).
 */
export const stripeVerifier: Verifier = {
  checkBinding(binding) {
    const parsed = readBinding(binding);
    return typeof parsed === 'string' ? parsed : null;
  },
  verify({ binding, rawBody, headers, now, env }) {
    const parsed = readBinding(binding);
    if (typeof parsed === 'string') throw new Error(parsed);
    const secret = env[parsed.secretEnv];
    if (secret === undefined || secret === '') {
      throw new Error(`${parsed.secretEnv} is not set on this gateway; the stripe verifier cannot run.`);
    }
    const header = singleHeader(headers, 'Stripe-Signature');
    if (header === null) throw new VerificationFailed('the Stripe-Signature header is missing.');
    const { timestamp, signatures } = parseHeader(header);
    if (Math.abs(now / 1000 - timestamp) > parsed.toleranceSeconds) {
      throw new VerificationFailed(
        `the Stripe-Signature timestamp is outside the ${parsed.toleranceSeconds} s tolerance.`,
      );
    }
    const expected = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
    // Check every candidate without stopping early, so the position of a match does not show in the timing.
    let matched = false;
    for (const signature of signatures) {
      if (timingSafeEqual(signature, expected)) matched = true;
    }
    if (!matched) throw new VerificationFailed('no Stripe-Signature v1 signature matches the signing secret.');
  },
};
