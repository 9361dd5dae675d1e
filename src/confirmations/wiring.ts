import type { IncomingHttpHeaders } from 'node:http';
import type { CallbackService } from '../core/callback-service.js';
import { AskgateError } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { OperatorSignals } from '../core/operator-signals.js';
import type { Store } from '../core/store-port.js';
import type { Logger } from '../observability/logger.js';
import { answerConfirmation, type BridgeOutcome, type BridgeSettings } from './bridge.js';
import type { ConfirmationsConfig } from './config.js';
import { ingest, type IngressVerdict } from './ingress.js';
import type { BridgeStep, ConfirmationJobs, FailedBridgeJob } from './jobs.js';
import { PresetService } from './presets.js';
import { confirmationProviders } from './providers/index.js';
import { type ConfirmationProvider, ProviderNotConfigured } from './providers/types.js';
import { reconcile, type ReconcileSummary } from './reconcile.js';

/** Everything confirmations put on a gateway: presets, the ingress, the bridge, reconcile. */
export interface Confirmations {
  readonly presets: PresetService;
  readonly providers: ReadonlyMap<string, ConfirmationProvider>;
  ingest(provider: ConfirmationProvider, rawBody: Buffer, headers: IncomingHttpHeaders): Promise<IngressVerdict>;
  /** One reconcile run over every configured provider; `lookbackHours` defaults to the configured lookback. */
  reconcile(lookbackHours?: number): Promise<ReconcileSummary>;
  listFailed(): Promise<FailedBridgeJob[]>;
  retry(jobId: string): Promise<void>;
  close(): Promise<void>;
}

export interface ConfirmationsDeps {
  /** The parts of the gateway's Config confirmations read (the whole Config fits). */
  config: { confirmations: ConfirmationsConfig; publicBaseUrl: string | null };
  store: Store;
  service: InteractionService;
  /** The callback door's rules: the bridge answers through them, in process. */
  callbacks: CallbackService;
  logger: Logger;
  /** Whether this process runs workers (the bridge and reconcile consumers, the reconcile schedule). */
  workers: boolean;
  /** The job port (`src/queue/confirmation-jobs.ts` on Redis); null on the in-memory store. */
  jobs: ConfirmationJobs | null;
  /** Where unserved reconcile runs and failed bridge jobs are raised for operators (stream and `/metrics`). */
  signals: OperatorSignals;
}

function needsJobs(): AskgateError {
  return new AskgateError(
    'not_configured',
    'bridge jobs live in Redis, and this gateway runs on the in-memory store; set REDIS_URL.',
  );
}

/** A bridge outcome as the job queue takes it: done, retried on the ladder, or kept as failed. */
export function stepOf(outcome: BridgeOutcome): BridgeStep {
  if (outcome.kind === 'answered' || outcome.kind === 'already_answered') return { kind: 'done' };
  if (outcome.kind === 'transient') return { kind: 'retry', reason: outcome.reason };
  return { kind: 'fail', reason: outcome.reason };
}

/**
 * Builds confirmations. With a job port (Redis): the ingress keeps events as bridge jobs, and in a process that
 * runs workers the bridge and reconcile consumers plus the one reconcile scheduler (ASKGATE_RECONCILE_EVERY). On the
 * in-memory store: presets and reconcile work, the ingress and the failed-job doors answer 503.
 */
export async function startConfirmations(deps: ConfirmationsDeps): Promise<Confirmations> {
  const { config, store, service, callbacks, logger, jobs, signals } = deps;
  const providers = confirmationProviders(config.confirmations);
  const presets = new PresetService({ store, service, providers, logger });
  const settings: BridgeSettings = {
    publicBaseUrl: config.publicBaseUrl,
    secret: config.confirmations.bridgeSecret,
  };
  const runReconcile = async (lookbackHours = config.confirmations.reconcile.lookbackHours) => {
    const total: ReconcileSummary = {
      selected: 0,
      answered: 0,
      already_answered: 0,
      expired: 0,
      rejected: 0,
      failed: [],
    };
    let ran = 0;
    for (const provider of providers.values()) {
      let summary: ReconcileSummary;
      try {
        summary = await reconcile({
          provider,
          settings,
          callbacks,
          lookbackHours,
          intervalMs: config.confirmations.reconcile.intervalMs,
          logger,
          signals,
        });
      } catch (err) {
        if (err instanceof ProviderNotConfigured) continue;
        const why = err instanceof Error ? err.message : String(err);
        throw new AskgateError('provider_failed', `${provider.name} could not list completed confirmations: ${why}`);
      }
      ran += 1;
      for (const k of ['selected', 'answered', 'already_answered', 'expired', 'rejected'] as const)
        total[k] += summary[k];
      total.failed.push(...summary.failed);
    }
    if (ran === 0)
      throw new AskgateError('not_configured', 'no confirmation provider is configured here; set STRIPE_SECRET_KEY.');
    return total;
  };

  // BullMQ gives each worker its own blocking duplicate of the queue connection: a worker process starts the
  // consumers only when a provider is set up here (ASKGATE_RECONCILE_EVERY without one stops the process at start).
  const inUse = [...providers.values()].some((provider) => provider.inUse());
  if (jobs !== null && deps.workers && inUse) {
    jobs.consume({
      bridge: async (job) => stepOf(await answerConfirmation(job.confirmation, settings, callbacks)),
      reconcile: async () => {
        const summary = await runReconcile();
        if (summary.failed.length > 0)
          throw new Error(`reconcile: ${summary.failed.length} confirmation(s) failed; see the run's log line.`);
        return summary;
      },
      bridgeFailed: (failed) =>
        signals.raise({
          type: 'confirmation.bridge_failed',
          provider: failed.provider,
          data: failed as unknown as Record<string, unknown>,
        }),
    });
    await jobs.schedule(config.confirmations.reconcile.everySeconds);
  }

  return {
    presets,
    providers,
    ingest: (provider, rawBody, headers) => ingest(provider, rawBody, headers, { store, jobs, logger }),
    reconcile: runReconcile,
    async listFailed() {
      if (jobs === null) throw needsJobs();
      return jobs.listFailed();
    },
    async retry(jobId) {
      if (jobs === null) throw needsJobs();
      if (!(await jobs.retry(jobId)))
        throw new AskgateError(
          'not_found',
          `no failed bridge job ${jobId}; list them with GET /api/confirmations/failed.`,
        );
    },
    async close() {
      await jobs?.close();
    },
  };
}
