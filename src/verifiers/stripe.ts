import type { VerifierBinding } from '../core/types.js';
import { secretList } from './secret-list.js';
import { STRIPE_TOLERANCE_SECONDS, verifyStripeSignature } from './stripe-signature.js';
import { headerValue, type Verifier } from './types.js';

/** Stripe's own default freshness window. */
export const DEFAULT_TOLERANCE_SECONDS = STRIPE_TOLERANCE_SECONDS;

/**
 * Variables a binding may never name: askgate's own configuration is not a webhook signing secret. The channels'
 * variables are reserved by the gateway on the registry (VerifierRegistry.reserveVariables), from the channels'
 * registration list, so a new channel's are refused without a line here.
 */
const FORBIDDEN_SECRET_ENVS =
  /^(ASKGATE_|REDIS_URL$|TAI_BRIDGE_CALLBACK_SECRET$|INTERACTIONS_|PATH$|HOME$|HOST$|PORT$)/;

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
    return (
      'the stripe verifier needs secret_env: the name of the variable holding the endpoint signing secret, ' +
      'e.g. "STRIPE_WEBHOOK_SECRET".'
    );
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

/**
 * `stripe`: Stripe's webhook signature, checked by the one Stripe check (`stripe-signature.ts`, the stripe
 * package's own): any `v1` signed by any secret in the variable the binding's `secret_env` names (comma-separated,
 * like `STRIPE_WEBHOOK_SECRET` while a secret is rolled), the timestamp within `tolerance_seconds` (default 300)
 * either way. The variable unset, the verifier cannot run (500).
 */
export const stripeVerifier: Verifier = {
  checkBinding(binding) {
    const parsed = readBinding(binding);
    return typeof parsed === 'string' ? parsed : null;
  },
  verify({ binding, rawBody, headers, now, env }) {
    const parsed = readBinding(binding);
    if (typeof parsed === 'string') throw new Error(parsed);
    const secrets = secretList(env[parsed.secretEnv]);
    if (secrets.length === 0)
      throw new Error(`${parsed.secretEnv} is not set on this gateway; the stripe verifier cannot run.`);
    return verifyStripeSignature({
      rawBody,
      header: headerValue(headers, 'Stripe-Signature'),
      secrets,
      secretName: parsed.secretEnv,
      toleranceSeconds: parsed.toleranceSeconds,
      now,
    });
  },
};
