import type { ChannelPlugin } from '../../channels/contract.js';
import type { Config } from '../config.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import { ChatWorker } from '../queue/chat-worker.js';
import { CompletionStream } from '../queue/completion-stream.js';
import { LegacyCompletions } from '../queue/completion-worker.js';
import { queuePrefixes, queueShardsOf } from '../queue/queue-shards.js';
import { ResumeProducer } from '../queue/queues.js';
import { ResumeWorker } from '../queue/resume-worker.js';
import type { Checkpoints } from '../runs/checkpoints.js';
import { ConversationService } from '../runs/conversations.js';
import { ParkService } from '../runs/park-service.js';
import type { RunStore } from '../runs/run-store.js';
import type { RedisConnections } from '../store/redis/connections.js';
import { RunLocator } from '../store/redis/run-locator.js';
import { RedisRunStore } from '../store/redis/run-store.js';
import { ShardedRunStore } from '../store/redis/sharded-runs.js';
import type { Store } from '../store/store.js';

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

/** The run store: one RedisRunStore, or one per shard behind the router when ASKGATE_SHARDS > 1 (sharded-runs.ts). */
function runStoreOf(
  config: Config,
  connections: RedisConnections,
  locator: RunLocator | null,
): RunStore & { checkpoints: Checkpoints } {
  const retentionMs = config.retentionWaitingMinutes * 60_000;
  const idleTtlMs = config.idleTtlSeconds * 1000;
  if (locator === null) return new RedisRunStore(connections, retentionMs, idleTtlMs);
  const shards = connections.shardKeys.map(
    (keys) => new RedisRunStore(connections, retentionMs, idleTtlMs, false, keys),
  );
  return new ShardedRunStore(shards, locator);
}

/**
 * Builds the park side from config: on a durable store, the run store, the resume producer (every process enqueues)
 * and, in a process that runs workers, the completion worker (handler completions reported by SDK workers) and,
 * with routes, the chat worker now, and the resume worker (with its straggler sweep) once `startWorkers` hands it
 * the interaction service. Every connection comes from `connections` (the run store shares the command connection,
 * queues and workers the BullMQ one), which the caller owns and closes. Kept apart from gateway.ts so the
 * composition root only plugs it in.
 */
export async function startParks(
  config: Config,
  store: Store,
  logger: Logger,
  workers: boolean,
  channels: readonly ChannelPlugin[] = [],
  connections: RedisConnections | null = null,
): Promise<Parks> {
  if (!store.durable || connections === null)
    return { service: null, conversations: null, startWorkers: () => undefined, close: async () => undefined };
  // Where a run lives: the run store routes by it, and the producer queues a run's jobs in the same shard.
  const locator =
    connections.shardKeys.length === 1 ? null : new RunLocator(connections.command(), connections.shardKeys);
  const runs = runStoreOf(config, connections, locator);
  const connection = connections.queue();
  const queueShards = queueShardsOf(connections.shardKeys, locator ?? undefined);
  // Every worker below works the queues of every shard (queue-shards.ts); a job goes to its run's shard.
  const basis = {
    connection,
    queuePrefixes: queuePrefixes(queueShards),
    lockMs: config.resumeLockMs,
    backoffMs: config.resumeBackoffMs,
  };
  const producer = new ResumeProducer(connection, queueShards);
  // The checkpoints live in the run hashes (the Redis run store's own), so a park writes both in one step.
  const { checkpoints } = runs;
  const parks = new ParkService({
    runs,
    checkpoints,
    jobs: producer,
    logger,
    holdBeforeEnqueue: config.testHoldBeforeEnqueue,
  });
  const routed = config.routes.length > 0;
  const conversations = routed
    ? new ConversationService({ routes: config.routes, checkpoints, jobs: producer, logger })
    : null;
  let worker: ResumeWorker | null = null;
  let chatWorker: ChatWorker | null = null;
  let completions: CompletionStream[] = [];
  let legacyCompletions: LegacyCompletions | null = null;
  if (workers) {
    if (routed) {
      chatWorker = new ChatWorker({
        ...basis,
        producer,
        routes: config.routes,
        channels,
        tokens: config.tokens,
        logger,
        outbound: { allowPrivate: config.webhookAllowPrivate },
      });
    }
    // Handler completions: version 2 from each shard's stream (an SDK worker reports to the stream of the shard its
    // job came from); version 1 (jobs an older gateway added, before shards) from shard 0's `completed` queue.
    completions = queueShards.keys.map(
      (keys, shard) =>
        new CompletionStream({
          command: connections.command(),
          reader: connections.streamReader(shard),
          stream: keys.completions,
          runs,
          producer,
          logger,
          lockMs: config.resumeLockMs,
        }),
    );
    legacyCompletions = new LegacyCompletions({
      connection,
      queuePrefix: connections.keys.queuePrefix,
      runs,
      producer,
      logger,
    });
  }
  return {
    service: parks,
    conversations,
    startWorkers(service) {
      if (!workers || worker !== null) return;
      worker = new ResumeWorker({
        ...basis,
        runs,
        service,
        producer,
        tokens: config.tokens,
        logger,
        outbound: { allowPrivate: config.webhookAllowPrivate },
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
      await Promise.all(completions.map((c) => c.close()));
      await legacyCompletions?.close();
      await producer.close();
      await runs.close();
    },
  };
}
