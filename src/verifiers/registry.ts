import type { VerifierBinding } from '../core/types.js';
import type { VerifierPort } from '../core/verifier-port.js';
import { sharedSecretVerifier } from './shared-secret.js';
import { stripeVerifier } from './stripe.js';
import { MalformedBinding, type Verifier, type VerifyInput, type VerifyResult } from './types.js';

export { ACCEPTED, MalformedBinding, refused, type Verifier, type VerifyInput, type VerifyResult } from './types.js';

/**
 * Webhook verifiers: a question bound to one at ask time (`verifier: {"name": ...}`) is answered through the
 * callback door only by a request the verifier accepts (see `types.ts` for the refused / cannot-run split).
 */

/** The verifiers a deployment knows, by name. Built-ins: `shared_secret` and `stripe`. */
export class VerifierRegistry implements VerifierPort {
  private readonly verifiers = new Map<string, Verifier>();
  /** Prefixes of variables no binding may name as its secret (`reserveVariables`). */
  private readonly reserved = new Set<string>();

  /** Adds (or replaces) a verifier. Call it at start, before the doors take traffic. */
  register(name: string, verifier: Verifier): this {
    if (!/^[a-z][a-z0-9_-]{0,63}$/.test(name))
      throw new Error(`verifier name "${name}" must be lower-case letters, digits, _ or -.`);
    this.verifiers.set(name, verifier);
    return this;
  }

  /**
   * Refuses every binding whose `secret_env` starts with one of `prefixes`: the gateway reserves its channels'
   * variables (TELEGRAM_…), so an asker cannot probe a bot token through signatures it chooses. Call it at start.
   */
  reserveVariables(prefixes: readonly string[]): this {
    for (const prefix of prefixes) this.reserved.add(prefix);
    return this;
  }

  has(name: string): boolean {
    return this.verifiers.has(name);
  }

  names(): string[] {
    return [...this.verifiers.keys()].sort();
  }

  /** Why the binding cannot be used (unknown name, bad options), or null when it can. Used at ask time. */
  explain(binding: VerifierBinding): string | null {
    const verifier = this.verifiers.get(binding.name);
    if (verifier === undefined) {
      return `verifier "${binding.name}" is not registered on this gateway; registered: ${this.names().join(', ') || 'none'}.`;
    }
    return this.reservedRefusal(binding) ?? verifier.checkBinding?.(binding) ?? null;
  }

  /** Why the binding's `secret_env` may not be used (a reserved variable), or null. */
  private reservedRefusal(binding: VerifierBinding): string | null {
    const secretEnv = binding['secret_env'];
    if (typeof secretEnv !== 'string') return null;
    for (const prefix of this.reserved)
      if (secretEnv.startsWith(prefix))
        return (
          `secret_env "${secretEnv}" names one of askgate's own variables (${prefix}…); ` +
          'name the variable that holds the signing secret.'
        );
    return null;
  }

  /**
   * Runs the bound verifier: its verdict, accepted or refused with a reason. Rejects only when it cannot run
   * (unknown name, malformed binding, missing secret, a bug).
   */
  async verify(input: VerifyInput): Promise<VerifyResult> {
    const verifier = this.verifiers.get(input.binding.name);
    if (verifier === undefined) throw new MalformedBinding(`verifier "${input.binding.name}" is not registered.`);
    const malformed = this.reservedRefusal(input.binding) ?? verifier.checkBinding?.(input.binding) ?? null;
    if (malformed !== null) throw new MalformedBinding(malformed);
    return verifier.verify(input);
  }
}

/** A registry holding the built-in verifiers. */
export function defaultVerifiers(): VerifierRegistry {
  return new VerifierRegistry().register('shared_secret', sharedSecretVerifier).register('stripe', stripeVerifier);
}
