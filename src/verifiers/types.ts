import type { IncomingHttpHeaders } from 'node:http';
import type { VerifierBinding } from '../core/types.js';
import type { VerifyInput } from '../core/verifier-port.js';
import { ACCEPTED, refused, type VerifyResult } from '../core/verify-result.js';

/**
 * The verifier vocabulary. A verifier is a pure function of the request returning a `VerifyResult` (the core's one
 * verdict shape, the same a channel's webhook `verify` returns): refused, and the door answers 401 with the reason;
 * or accepted. It throws only when it cannot run at all (missing secret, malformed binding, a bug): the door answers
 * 500 and reveals nothing about the ticket.
 */

// The input and the verdict are the core's (the core defines the port; verifiers implement it).
export { ACCEPTED, refused, type VerifyInput, type VerifyResult };

/** One verifier: `verify` returns its verdict; `checkBinding` explains a malformed binding (or returns null). */
export interface Verifier {
  verify(input: VerifyInput): VerifyResult | Promise<VerifyResult>;
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

/** One header's value, a list when it was repeated (a verifier refuses that rather than guess), or undefined. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | string[] | undefined {
  return headers[name.toLowerCase()];
}
