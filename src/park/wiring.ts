import type { ChannelPlugin } from '../../channels/contract.js';
import type { Config } from '../config.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import { ResumeProducer, queueConnection } from '../queue/queues.js';
import { ChatWorker } from '../queue/chat-worker.js';
import { ResumeWorker } from '../queue/resume-worker.js';
import type { Store } from '../store/store.js';
import { ConversationService } from './conversations.js';
import { ParkService } from './park-service.js';
import { RunStore } from './run-store.js';

export interface Parks {
  /** Null on the in-memory store: async asks are refused with 409 there. */
  service: ParkService | null;
  /** Takes chat messages that answer no question (ASKGATE_ROUTES); null when no route is configured. */
  conversations: ConversationService | null;
  /**
   * Starts the resume worker (in a process that runs workers), which withdraws a killed run's asks through the
   * interaction service: the service is built after the park side, which it takes as its `ParkPort`.
   */
  startWorkers(service: InteractionService): void;
  close(): Promise<void>;
}

/**
 * Builds the park side from config: on a durable store, the run store, the resume producer (every process enqueues)
 * and, in a process that runs workers, the chat worker now and the resume worker (and its straggler sweep) once
 * `startWorkers` hands it the interaction service. Kept apart from gateway.ts so the
 * composition root only plugs it in.
 */
export async function startParks(
  config: Config,
  store: Store,
  logger: Logger,
  workers: boolean,
  channels: readonly ChannelPlugin[] = [],
): Promise<Parks> {
  if (!store.durable || config.redisUrl === null)
    return { service: null, conversations: null, startWorkers: () => undefined, close: async () => undefined };
  const runs = await RunStore.connect({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    retentionMs: config.retentionWaitingMinutes * 60_000,
    idleTtlMs: config.idleTtlSeconds * 1000,
  });
  const producerConnection = queueConnection(config.redisUrl);
  const producer = new ResumeProducer(producerConnection, runs.keys);
  const parks = new ParkService({ runs, producer, logger });
  const routed = config.routes.length > 0;
  const conversations = routed ? new ConversationService({ routes: config.routes, runs, producer, logger }) : null;
  let worker: ResumeWorker | null = null;
  let chatWorker: ChatWorker | null = null;
  let workerConnection: ReturnType<typeof queueConnection> | null = null;
  if (workers) {
    workerConnection = queueConnection(config.redisUrl);
    if (routed) {
      chatWorker = new ChatWorker({
        connection: workerConnection,
        queuePrefix: runs.keys.queuePrefix,
        producer,
        routes: config.routes,
        channels,
        tokens: config.tokens,
        logger,
        lockMs: config.resumeLockMs,
        backoffMs: config.resumeBackoffMs,
      });
    }
  }
  return {
    service: parks,
    conversations,
    startWorkers(service) {
      if (workerConnection === null || worker !== null) return;
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
        // A webhook-resumed run reached over chat: its output becomes the reply of this park, posted by a reply job.
        onResumed: async (run, _payload, output) => {
          if (run.thread !== null)
            await producer.enqueueReply({ runId: run.runId, generation: run.generation, thread: run.thread, output });
        },
      });
    },
    async close() {
      await worker?.close();
      await chatWorker?.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection?.disconnect();
      await runs.close();
    },
  };
}
