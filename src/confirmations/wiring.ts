import type { Config } from '../config.js';
import { AskgateError } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import type { RedisConnections } from '../store/redis/connections.js';
import type { Store } from '../store/store.js';
import type { BridgeSettings } from './bridge.js';
import { ingest, type IngressVerdict } from './ingress.js';
import { PresetService } from './presets.js';
import { confirmationProviders } from './providers/index.js';
import { type ConfirmationProvider, ProviderNotConfigured } from './providers/types.js';
import { ConfirmQueues, ConfirmWorkers, type FailedBridgeJob } from './queue.js';
import { reconcile, type ReconcileSummary } from './reconcile.js';
import type { IncomingHttpHeaders } from 'node:http';

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

function needsQueues(): AskgateError {
  return new AskgateError(
    'not_configured',
    'bridge jobs live in Redis, and this gateway runs on the in-memory store; set REDIS_URL.',
  );
}

/**
 * Builds confirmations from config. On Redis: the queues on every process, and in a process that runs workers the
 * bridge and reconcile workers plus the one reconcile scheduler (ASKGATE_RECONCILE_EVERY). On the in-memory store:
 * presets and reconcile work, the ingress and the failed-job doors answer 503.
 */
export async function startConfirmations(
  config: Config,
  store: Store,
  service: InteractionService,
  logger: Logger,
  workers: boolean,
  /** The process's Redis connections (null on the in-memory store): the queues use its BullMQ connection. */
  connections: RedisConnections | null = null,
): Promise<Confirmations> {
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
          lookbackHours,
          intervalMs: config.confirmations.reconcile.intervalMs,
          logger,
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

  const connection = store.durable && connections !== null ? connections.queue() : null;
  const prefix = connections?.keys.queuePrefix ?? '';
  const queues = connection === null ? null : new ConfirmQueues(connection, prefix);
  let consumers: ConfirmWorkers | null = null;
  // BullMQ gives each worker its own blocking duplicate of the queue connection: a worker process opens them only
  // when a provider is set up here (ASKGATE_RECONCILE_EVERY without one stops the process at start).
  const inUse = [...providers.values()].some((provider) => provider.inUse());
  if (queues !== null && connection !== null && workers && inUse) {
    consumers = new ConfirmWorkers({
      connection,
      prefix,
      settings,
      logger,
      reconcile: async () => {
        const summary = await runReconcile();
        if (summary.failed.length > 0)
          throw new Error(`reconcile: ${summary.failed.length} confirmation(s) failed; see the run's log line.`);
        return summary;
      },
    });
    await queues.schedule(config.confirmations.reconcile.everySeconds);
  }

  return {
    presets,
    providers,
    ingest: (provider, rawBody, headers) => ingest(provider, rawBody, headers, { store, queues, logger }),
    reconcile: runReconcile,
    async listFailed() {
      if (queues === null) throw needsQueues();
      return queues.listFailed();
    },
    async retry(jobId) {
      if (queues === null) throw needsQueues();
      if (!(await queues.retry(jobId)))
        throw new AskgateError(
          'not_found',
          `no failed bridge job ${jobId}; list them with GET /api/confirmations/failed.`,
        );
    },
    async close() {
      await consumers?.close();
      await queues?.close();
    },
  };
}
