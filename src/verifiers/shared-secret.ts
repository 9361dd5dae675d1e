import { createHash, timingSafeEqual } from 'node:crypto';
import { ACCEPTED, headerValue, refused, type Verifier } from './types.js';

/** The header the bridge's answer carries its secret in. */
export const BRIDGE_SECRET_HEADER = 'X-TAI-Bridge-Secret';
/** The variable holding the secret on every process that answers. */
export const BRIDGE_SECRET_ENV = 'TAI_BRIDGE_CALLBACK_SECRET';

/**
 * Constant-time equality of two strings of any lengths: both are hashed first, so neither the content nor the
 * length of the expected value leaks through timing.
 */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * `shared_secret`: "this answer came from the bridge". Checks `X-TAI-Bridge-Secret` against
 * `TAI_BRIDGE_CALLBACK_SECRET`. The binding takes no options. With the variable unset the verifier cannot run
 * (the door answers 500): failing closed, never open.
 */
export const sharedSecretVerifier: Verifier = {
  checkBinding(binding) {
    const extra = Object.keys(binding).find((k) => k !== 'name');
    return extra === undefined ? null : `the shared_secret verifier takes no options; drop "${extra}".`;
  },
  verify({ headers, env }) {
    const expected = env[BRIDGE_SECRET_ENV];
    if (expected === undefined || expected === '') {
      throw new Error(`${BRIDGE_SECRET_ENV} is not set on this gateway; the shared_secret verifier cannot run.`);
    }
    const given = headerValue(headers, BRIDGE_SECRET_HEADER);
    if (Array.isArray(given)) return refused(`the ${BRIDGE_SECRET_HEADER} header was sent more than once.`);
    if (given === undefined) return refused(`the ${BRIDGE_SECRET_HEADER} header is missing.`);
    return secretsEqual(given, expected) ? ACCEPTED : refused(`the ${BRIDGE_SECRET_HEADER} header does not match.`);
  },
};
