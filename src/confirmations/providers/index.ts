import type { ConfirmationsConfig } from '../config.js';
import { StripeCheckoutProvider } from './stripe.js';
import type { ConfirmationProvider } from './types.js';

export type { ConfirmationProvider } from './types.js';

/** The providers askgate knows, by the name a preset's `confirmation.provider` gives. Add a provider here. */
export function confirmationProviders(config: ConfirmationsConfig): Map<string, ConfirmationProvider> {
  const providers: ConfirmationProvider[] = [new StripeCheckoutProvider(config.stripe)];
  return new Map(providers.map((p) => [p.name, p]));
}
