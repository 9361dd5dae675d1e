import type { Config } from '../config.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import { ResumeProducer, queueConnection } from '../queue/queues.js';
import { ResumeWorker } from '../queue/resume-worker.js';
import type { Store } from '../store/store.js';
import { ParkService } from './park-service.js';
import { RunStore } from './run-store.js';

export interface Parks {
  /** Null on the in-memory store: async asks are refused with 409 there. */
  service: ParkService | null;
  close(): Promise<void>;
}

/**
 * Builds the park side from config: on a durable store, the run store, the resume producer (every process enqueues)
 * and, in a process that runs workers, the resume worker and its straggler sweep. Kept apart from gateway.ts so the
 * composition root only plugs it in.
 */
export async function startParks(config: Config, store: Store, service: InteractionService, logger: Logger, workers: boolean): Promise<Parks> {
  if (!store.durable || config.redisUrl === null) return { service: null, close: async () => undefined };
  const runs = await RunStore.connect({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    retentionMs: config.retentionWaitingMinutes * 60_000,
    idleTtlMs: config.idleTtlSeconds * 1000,
  });
  const producerConnection = queueConnection(config.redisUrl);
  const producer = new ResumeProducer(producerConnection, runs.keys);
  const parks = new ParkService({ service, runs, producer, logger });
  service.attachParks(parks);
  let worker: ResumeWorker | null = null;
  let workerConnection: ReturnType<typeof queueConnection> | null = null;
  if (workers) {
    workerConnection = queueConnection(config.redisUrl);
    worker = new ResumeWorker({
      connection: workerConnection,
      queuePrefix: runs.keys.queuePrefix,
      runs,
      service,
      producer,
      tokens: config.tokens,
      logger,
      lockMs: config.resumeLockMs,
      backoffMs: config.resumeBackoffMs,
    });
  }
  return {
    service: parks,
    async close() {
      await worker?.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection?.disconnect();
      await runs.close();
    },
  };
}
