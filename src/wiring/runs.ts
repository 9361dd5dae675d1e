import { ChannelError, type ChannelPlugin } from '../../channels/contract.js';
import type { Config } from '../config.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import { BullJobBus } from '../queue/bull-job-bus.js';
import type { HandlerArrivals } from '../queue/handler-arrivals.js';
import { queueShardsOf } from '../queue/queue-shards.js';
import { ChatJobs } from '../runs/chat-jobs.js';
import type { ChatThread, Checkpoints, ParkCheckpoints } from '../runs/checkpoints.js';
import { CheckpointedRuns, LayeredCheckpoints } from '../runs/checkpointed-runs.js';
import { recordCompletion } from '../runs/completion.js';
import { ConversationService } from '../runs/conversations.js';
import { ParkService } from '../runs/park-service.js';
import { RunResumer } from '../runs/resume.js';
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
   * Starts the run workers (in a process that runs workers): resume, turn, reply, completions, and the recovery
   * sweep. The resumer withdraws a killed run's asks through the interaction service, which is built after the park
   * side (it takes it as its `ParkPort`).
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
 * Builds the run side from config: on a durable store, the run store and its checkpoints (Redis), the job bus
 * (BullMQ: every process enqueues), the ParkService and, with routes, the ConversationService; once `startWorkers`
 * hands it the interaction service, in a process that runs workers, the lifecycle's job handlers (RunResumer,
 * ChatJobs, recordCompletion) on the bus's workers, and the recovery sweep. Every connection comes from
 * `connections` (the run store shares the command connection, queues and workers the BullMQ one), which the caller
 * owns and closes. The composition root's: the only module that joins src/runs to src/store and src/queue.
 */
export async function startParks(
  config: Config,
  store: Store,
  logger: Logger,
  workers: boolean,
  channels: readonly ChannelPlugin[] = [],
  connections: RedisConnections | null = null,
  /** The PostgreSQL checkpointer (ASKGATE_CHECKPOINT_URL), or null to keep checkpoints in the run hashes. */
  parkCheckpoints: ParkCheckpoints | null = null,
  /** Told of each handler job this process adds, so its own claims take it at once (the gateway's claims listen). */
  arrivals: HandlerArrivals | null = null,
): Promise<Parks> {
  if (!store.durable || connections === null)
    return { service: null, conversations: null, startWorkers: () => undefined, close: async () => undefined };
  // Where a run lives: the run store routes by it, and the producer queues a run's jobs in the same shard.
  const locator =
    connections.shardKeys.length === 1 ? null : new RunLocator(connections.command(), connections.shardKeys);
  const records = runStoreOf(config, connections, locator);
  // Every park goes through CheckpointedRuns: with PostgreSQL it keeps the checkpoint there first; without, it still
  // refuses to resume a run parked there (rather than resume it without its state).
  const runs = new CheckpointedRuns(records, parkCheckpoints, logger);
  // Every worker works the queues of every shard (queue-shards.ts); a job goes to its run's shard.
  const jobs = new BullJobBus({
    connection: connections.queue(),
    shards: queueShardsOf(connections.shardKeys, locator ?? undefined),
    lockMs: config.resumeLockMs,
    backoffMs: config.resumeBackoffMs,
    logger,
    completions: { command: connections.command(), reader: (shard) => connections.streamReader(shard) },
    ...(arrivals === null ? {} : { arrivals }),
    sendNextAtOnce: (afterSent) => connections.sendNextQueueCommandAtOnce(afterSent),
  });
  // Without PostgreSQL the checkpoints live in the run hashes (the Redis run store's own), so a park writes both in
  // one step; with it, they are looked up there first, then in the run hashes (runs parked before the switch).
  const checkpoints: Checkpoints =
    parkCheckpoints === null ? records.checkpoints : new LayeredCheckpoints(parkCheckpoints, records.checkpoints);
  const parks = new ParkService({ runs, checkpoints, jobs, logger, holdBeforeEnqueue: config.testHoldBeforeEnqueue });
  const routed = config.routes.length > 0;
  const conversations = routed ? new ConversationService({ routes: config.routes, checkpoints, jobs, logger }) : null;
  const outbound = { allowPrivate: config.webhookAllowPrivate };
  let resumer: RunResumer | null = null;
  return {
    service: parks,
    conversations,
    startWorkers(service) {
      if (!workers || resumer !== null) return;
      resumer = new RunResumer({
        runs,
        jobs,
        withdraw: (id) => service.withdraw(id),
        tokens: config.tokens,
        logger,
        outbound,
        // A webhook-resumed run reached over chat: its output becomes the reply of this park, posted by a reply job.
        onResumed: async (run, _payload, output) => {
          if (run.thread !== null)
            await jobs.enqueueReply({ runId: run.runId, generation: run.generation, thread: run.thread, output });
        },
      });
      const chat = routed
        ? new ChatJobs({
            routes: config.routes,
            jobs,
            tokens: config.tokens,
            logger,
            outbound,
            postReply: (thread, text) => postReply(channels, thread, text),
          })
        : null;
      const running = resumer;
      jobs.work({
        resume: (job) => running.resume(job),
        ...(chat === null
          ? {}
          : {
              chat: {
                turn: (payload) => chat.turn(payload),
                reply: (data) => chat.reply(data),
                retryAfterMs: (err) =>
                  err instanceof ChannelError && err.retryAfter !== null ? err.retryAfter * 1000 : null,
              },
            }),
        completion: (report) => recordCompletion(report, { runs, jobs }),
      });
      resumer.startRecovery();
    },
    async close() {
      resumer?.stopRecovery();
      await jobs.close();
      await runs.close();
    },
  };
}

/** Posts a reply through the thread's channel (its `postReply`, and so its pacing). */
async function postReply(channels: readonly ChannelPlugin[], thread: ChatThread, text: string): Promise<void> {
  const channel = channels.find((c) => c.name === thread.channel);
  if (channel?.postReply === undefined)
    throw new Error(`channel "${thread.channel}" is not configured in this worker (or cannot post replies).`);
  await channel.postReply(
    thread.replyToMessageId === null
      ? { recipient: thread.recipient }
      : { recipient: thread.recipient, replyToMessageId: thread.replyToMessageId },
    text,
  );
}
