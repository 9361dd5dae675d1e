import type { IncomingHttpHeaders } from 'node:http';
import type { VerifierBinding } from '../core/types.js';
import { VerificationFailed, type VerifyInput } from '../core/verifier-port.js';

/**
 * The verifier vocabulary. A verifier is a pure function of the request; it throws `VerificationFailed` to refuse
 * (the door answers 401) and anything else when it cannot run at all (missing secret, malformed binding, a bug:
 * the door answers 500 and reveals nothing about the ticket).
 */

// The input and the refusal are the core's verifier port (the core defines them; verifiers implement them).
export { VerificationFailed, type VerifyInput };

/** One verifier: `verify` refuses or returns; `checkBinding` explains a malformed binding (or returns null). */
export interface Verifier {
  verify(input: VerifyInput): void | Promise<void>;
  /** Shape check of a binding, run at ask time and again before every verify. Default: any binding is fine. */
  checkBinding?(binding: VerifierBinding): string | null;
}

/** A binding whose shape its verifier refuses; thrown before verification, so the door answers 500. */
export class MalformedBinding extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedBinding';
  }
}

/** One header's value; a repeated header is refused rather than guessed at. */
export function singleHeader(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  if (Array.isArray(value)) throw new VerificationFailed(`the ${name} header was sent more than once.`);
  return value;
}
