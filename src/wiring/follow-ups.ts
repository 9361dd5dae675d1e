import type { ChannelPlugin } from '../../channels/contract.js';
import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import type { RedisConnections } from '../store/redis/connections.js';
import type { Store } from '../store/store.js';
import { FollowUpWorker, type FollowUpWorkerOptions } from '../queue/follow-up-worker.js';
import { FollowUpScheduler } from '../queue/follow-ups.js';
import { queuePrefixes, queueShardsOf } from '../queue/queue-shards.js';

export interface FollowUps {
  /** The core's FollowUpPort; null on the in-memory store, where `remind` and `escalate` are refused (409). */
  scheduler: FollowUpScheduler | null;
  /** Starts the worker (in a process that runs workers) once the steps' actions exist: they need the service. */
  startWorker(actions: Pick<FollowUpWorkerOptions, 'deliverToSurface'>): void;
  close(): Promise<void>;
}

/**
 * Builds the follow-up side from config: on a durable store, the scheduler (every process schedules and cancels, on
 * the process's BullMQ connection) and, where workers run, the follow-up worker (one more blocking connection).
 */
export function startFollowUps(
  config: Config,
  store: Store,
  logger: Logger,
  workers: boolean,
  channels: readonly ChannelPlugin[],
  connections: RedisConnections | null,
): FollowUps {
  if (!store.durable || connections === null)
    return { scheduler: null, startWorker: () => undefined, close: async () => undefined };
  if (config.testFollowUpSecondMs !== 1000)
    logger.warn(
      { secondMs: config.testFollowUpSecondMs },
      'ASKGATE_TEST_FOLLOW_UP_SECOND_MS is set: reminders and escalations run on a test clock; unset it outside tests',
    );
  const queueShards = queueShardsOf(connections.shardKeys);
  const scheduler = new FollowUpScheduler(connections.queue(), queueShards, config.testFollowUpSecondMs);
  let worker: FollowUpWorker | null = null;
  return {
    scheduler,
    startWorker(actions) {
      if (!workers || worker !== null) return;
      worker = new FollowUpWorker({
        connection: connections.queue(),
        queuePrefixes: queuePrefixes(queueShards),
        lockMs: config.resumeLockMs,
        backoffMs: config.resumeBackoffMs,
        store,
        channels,
        logger,
        ...actions,
      });
    },
    async close() {
      await worker?.close();
      await scheduler.close();
    },
  };
}
