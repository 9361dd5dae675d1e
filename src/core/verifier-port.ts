import type { IncomingHttpHeaders } from 'node:http';
import type { VerifierBinding } from './types.js';

/**
 * The verifier port: how the callback door's rules run the verifier bound to a question. The registry in
 * `src/verifiers/` implements it; a verifier throws `VerificationFailed` to refuse (the door answers 401) and
 * anything else when it cannot run at all (the door answers 500 and reveals nothing about the ticket).
 */

/** What a verifier sees: the binding stored with the question and the request exactly as it arrived. */
export interface VerifyInput {
  /** The binding the asker gave at ask time, e.g. `{"name": "stripe", "secret_env": "STRIPE_WEBHOOK_SECRET"}`. */
  binding: VerifierBinding;
  /** The body bytes as received: signatures are over these, never over a re-serialisation. */
  rawBody: Buffer;
  /** Request headers, lower-cased names (Node's shape). */
  headers: IncomingHttpHeaders;
  /** Now, epoch ms (injected so tolerance windows are testable). */
  now: number;
  /** The gateway's environment, where secrets named by a binding are read. */
  env: Readonly<Record<string, string | undefined>>;
}

/** A verifier's refusal: the request is not from whom the binding trusts. Anything else thrown means "cannot run". */
export class VerificationFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerificationFailed';
  }
}

/** The verifiers a gateway knows. */
export interface VerifierPort {
  /** Why the binding cannot be used (unknown name, bad options), or null when it can. Used at ask time. */
  explain(binding: VerifierBinding): string | null;
  /** Resolves when the bound verifier accepts; rejects with `VerificationFailed` when it refuses, else when it cannot run. */
  verify(input: VerifyInput): Promise<void>;
}
