import type { CallbackService } from '../core/callback-service.js';
import type { OperatorSignals } from '../core/operator-signals.js';
import type { Logger } from '../observability/logger.js';
import { type BridgeSettings, deliverNow } from './bridge.js';
import type { CompletedConfirmation, ConfirmationProvider } from './providers/types.js';

/**
 * Reconcile: ask the provider which confirmations completed inside the lookback, and answer each through the same
 * bridge path (in process, through the callback service), one at a time and paced, so a long run spreads its reads
 * and claims on the store. It reads the provider, not askgate's state, so it recovers an event that never arrived
 * and a bridge job that failed. Answering an answered question again is free (`already_answered`).
 */

/** Five disjoint outcomes: `selected == answered + already_answered + expired + rejected + failed.length`. */
export interface ReconcileSummary {
  selected: number;
  answered: number;
  already_answered: number;
  /** The ticket no longer resolves (the door's 404): the ask died, or was answered long enough ago to be pruned. */
  expired: number;
  /** The question's pin refused this payload (the door's 400), usually preset drift. */
  rejected: number;
  /**
   * Everything that is not a verdict on one confirmation: the ladder exhausted on a transient failure (the store
   * unreachable, the verifier unable to run), the verifier's refusal (the door's 401), 403, the SSRF pin.
   */
  failed: Array<{ session: string; reason: string }>;
}

export interface ReconcileOptions {
  provider: ConfirmationProvider;
  settings: BridgeSettings;
  callbacks: CallbackService;
  lookbackHours: number;
  intervalMs: number;
  logger: Logger;
  /** Where a run that found every confirmation expired is raised (the stream's event and `/metrics`' counter). */
  signals: OperatorSignals;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One run. Rejects only when the provider cannot be listed; per-confirmation trouble lands in the summary. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileSummary> {
  const selected: CompletedConfirmation[] = await options.provider.listCompleted(
    Date.now() - options.lookbackHours * 3_600_000,
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
    const outcome = await deliverNow(confirmation, options.settings, options.callbacks, sleep);
    if (outcome.kind === 'refused' || outcome.kind === 'transient')
      summary.failed.push({ session: confirmation.session, reason: outcome.reason });
    else summary[outcome.kind] += 1;
  }
  const log = { provider: options.provider.name, lookback_hours: options.lookbackHours, ...summary };
  if (summary.selected > 0 && summary.expired === summary.selected) {
    options.logger.warn(
      log,
      'every selected confirmation came back expired: this process may read another store than the one that asked ' +
        '(check REDIS_URL and ASKGATE_REDIS_PREFIX against the processes that serve asks)',
    );
    const data = {
      provider: options.provider.name,
      lookback_hours: options.lookbackHours,
      selected: summary.selected,
      expired: summary.expired,
      at: new Date().toISOString(),
    };
    // The run's summary stands whether or not the signal could be raised; the log line above says it either way.
    await options.signals
      .raise({ type: 'confirmation.reconcile_unserved', provider: options.provider.name, data })
      .catch((err: unknown) =>
        options.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'could not raise a signal'),
      );
  } else if (summary.failed.length > 0) {
    options.logger.error(log, 'reconcile run finished with failures');
  } else {
    options.logger.info(log, 'reconcile run finished');
  }
  return summary;
}
