import type { Logger } from '../observability/logger.js';
import { BridgeFailure, type BridgeSettings, deliverNow } from './bridge.js';
import type { CompletedConfirmation, ConfirmationProvider } from './providers/types.js';

/**
 * Reconcile: ask the provider which confirmations completed inside the lookback, and answer each through the same
 * bridge path, one at a time and paced (a run is one client address against a door with a per-address flood
 * budget). It reads the provider, not askgate's state, so it recovers an event that never arrived and a bridge job
 * that failed. Answering an answered question again is free (`already_answered`).
 */

/** Five disjoint outcomes: `selected == answered + already_answered + expired + rejected + failed.length`. */
export interface ReconcileSummary {
  selected: number;
  answered: number;
  already_answered: number;
  /** The door's 404: the ticket no longer resolves (the ask died, or was answered long enough ago to be pruned). */
  expired: number;
  /** The door's 400: the question's pin refused this payload (usually preset drift). */
  rejected: number;
  /** Everything that is not a verdict on one confirmation: transport, 5xx exhaustion, 401, 403, the SSRF pin. */
  failed: Array<{ session: string; reason: string }>;
}

export interface ReconcileOptions {
  provider: ConfirmationProvider;
  settings: BridgeSettings;
  lookbackHours: number;
  intervalMs: number;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One run. Rejects only when the provider cannot be listed; per-confirmation trouble lands in the summary. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileSummary> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const selected: CompletedConfirmation[] = await options.provider.listCompleted(
    now() - options.lookbackHours * 3_600_000,
  );
  const summary: ReconcileSummary = {
    selected: selected.length,
    answered: 0,
    already_answered: 0,
    expired: 0,
    rejected: 0,
    failed: [],
  };
  for (const [i, confirmation] of selected.entries()) {
    if (i > 0 && options.intervalMs > 0) await sleep(options.intervalMs);
    try {
      const verdict = await deliverNow(confirmation, options.settings, sleep);
      summary[verdict] += 1;
    } catch (err) {
      if (err instanceof BridgeFailure && err.status === 404) summary.expired += 1;
      else if (err instanceof BridgeFailure && err.status === 400) summary.rejected += 1;
      else
        summary.failed.push({
          session: confirmation.session,
          reason: err instanceof Error ? err.message : String(err),
        });
    }
  }
  const log = { provider: options.provider.name, lookback_hours: options.lookbackHours, ...summary };
  if (summary.selected > 0 && summary.expired === summary.selected) {
    options.logger.warn(
      log,
      'every selected confirmation came back expired: the callback route may be unserved (check the ingress and INTERACTIONS_PUBLIC_BASE_URL)',
    );
  } else if (summary.failed.length > 0) {
    options.logger.error(log, 'reconcile run finished with failures');
  } else {
    options.logger.info(log, 'reconcile run finished');
  }
  return summary;
}
