import type { IncomingHttpHeaders } from 'node:http';
import type { VerifierBinding } from './types.js';
import type { VerifyResult } from './verify-result.js';

/**
 * The verifier port: how the callback door's rules run the verifier bound to a question. The registry in
 * `src/verifiers/` implements it. A verifier answers with a `VerifyResult`: refused (the door answers 401 with the
 * reason) or accepted; it throws only when it cannot run at all (the door answers 500 and reveals nothing about the
 * ticket).
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

/** The verifiers a gateway knows. */
export interface VerifierPort {
  /** Why the binding cannot be used (unknown name, bad options), or null when it can. Used at ask time. */
  explain(binding: VerifierBinding): string | null;
  /** The bound verifier's verdict; rejects only when it cannot run (unknown name, malformed binding, secret unset). */
  verify(input: VerifyInput): Promise<VerifyResult>;
}
