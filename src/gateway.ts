import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { ChannelPlugin } from '../channels/contract.js';
import { channelCore } from '../channels/core-port.js';
import { CHANNEL_VARIABLE_PREFIXES, channelsFromConfig } from '../channels/registration/from-config.js';
import { ChannelRegistry } from '../channels/registry.js';
import { ConfigError, type Config } from './config.js';
import { EventHub } from './core/event-hub.js';
import { InteractionService } from './core/interaction-service.js';
import { CallbackService } from './core/callback-service.js';
import { BRIDGE_LADDER } from './confirmations/ladder.js';
import { startConfirmations } from './confirmations/wiring.js';
import { fastDoors } from './doors/fast-door.js';
import { hotDoors } from './doors/hot-doors.js';
import { ActionLinks } from './core/action-links.js';
import { TokenAuthenticator } from './doors/auth.js';
import { startParks } from './wiring/runs.js';
import { CheckpointClaims } from './runs/checkpointed-runs.js';
import { openPostgresCheckpointer, type PostgresCheckpointer } from './wiring/checkpoints.js';
import { BullConfirmationJobs } from './queue/confirmation-jobs.js';
import { BullHandlerClaims } from './queue/handler-claims.js';
import { HandlerArrivals } from './queue/handler-arrivals.js';
import { startFollowUps } from './wiring/follow-ups.js';
import { channelSettings, checkRouteChannels, stopChannels } from './wiring/channels.js';
import { httpApp } from './wiring/http.js';
import { createLogger, type Logger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { MemoryChannelState } from './store/memory-channel-state.js';
import { MemoryOperatorSignals } from './store/memory-operator-signals.js';
import { MemoryStore } from './store/memory-store.js';
import { RedisChannelState } from './store/redis/channel-state.js';
import { RedisConnections } from './store/redis/connections.js';
import { RedisOperatorSignals } from './store/redis/operator-signals.js';
import { RedisStore } from './store/redis/redis-store.js';
import { ShardedStore } from './store/redis/sharded-store.js';
import { recordShards, shrinkRefusal } from './store/redis/shard-record.js';
import type { Store } from './store/store.js';
import { defaultVerifiers, type VerifierRegistry } from './verifiers/registry.js';

// Imported from here by tests that build channels as the gateway does.
export { channelSettings } from './wiring/channels.js';

/** How often a process looks for passed deadlines. Every process sweeps; the store hands each due id to one. */
const SWEEP_INTERVAL_MS = 250;

export interface GatewayOptions {
  logger?: Logger;
  /** Run the background workers: deadline sweeps (and, later, queues). Default true. */
  workers?: boolean;
  /** The webhook verifiers questions may bind; default the built-ins (`shared_secret`, `stripe`). Add your own here. */
  verifiers?: VerifierRegistry;
  /**
   * Channels built outside configuration (an embedder's own channel), registered after the configured ones and
   * treated exactly like them: mounted, started in order, stopped at close.
   */
  plugins?: readonly ChannelPlugin[];
}

export interface Gateway {
  readonly config: Config;
  readonly store: Store;
  readonly service: InteractionService;
  /** The public callback door's rules (the door and the confirmation bridge answer through them). */
  readonly callbacks: CallbackService;
  readonly hub: EventHub;
  readonly channels: ChannelRegistry;
  readonly app: Express;
  readonly logger: Logger;
  /** Starts listening on config.host:config.port; resolves with the base URL actually bound. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The store of `config`: in memory without REDIS_URL, else on Redis through `connections` (the process's factory). */
export async function createStore(config: Config, connections: RedisConnections | null = null): Promise<Store> {
  if (config.redisUrl === null) return new MemoryStore({ idleTtlSeconds: config.idleTtlSeconds });
  // More than one shard: one RedisStore per shard behind the router (docs/scaling.md, "Shards").
  if (config.shards > 1)
    return ShardedStore.connect({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      shards: config.shards,
      ...(connections === null ? {} : { connections }),
      idleTtlSeconds: config.idleTtlSeconds,
      runRetentionMs: config.retentionWaitingMinutes * 60_000,
    });
  return RedisStore.connect({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    ...(connections === null ? {} : { connections }),
    idleTtlSeconds: config.idleTtlSeconds,
    runRetentionMs: config.retentionWaitingMinutes * 60_000,
  });
}

/**
 * Records ASKGATE_SHARDS in the store (shard-record.ts): raised when it grew, and a start with fewer shards than the
 * store already has is refused, naming the variable — the dropped shards' questions and runs would be orphaned.
 */
async function checkShards(config: Config, connections: RedisConnections | null): Promise<void> {
  if (connections === null) return;
  const record = await recordShards(connections.command(), connections.keys, config.shards);
  if (!record.ok) throw new ConfigError('ASKGATE_SHARDS', shrinkRefusal(record.recorded, config.shards));
}

/** The composition root: builds every part from config. Nothing here reads the environment. */
export async function createGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // The one connection factory of this process: the store, runs, queues and Telegram's pacing all draw from it.
  const connections =
    config.redisUrl === null
      ? null
      : new RedisConnections({
          url: config.redisUrl,
          prefix: config.redisPrefix,
          shards: config.shards,
          waitReplicas: config.redisWaitReplicas,
          waitTimeoutMs: config.redisWaitTimeoutMs,
        });
  const store = await createStore(config, connections)
    .then(async (created) => {
      await checkShards(config, connections).catch(async (err: unknown) => {
        await created.close();
        throw err;
      });
      return created;
    })
    .catch(async (err: unknown) => {
      await connections?.close();
      throw err;
    });
  const hub = new EventHub(store);
  const metrics = new Metrics();
  // What operators must hear of beside the log (an unserved reconcile run, a failed bridge job): stream and /metrics.
  const signals = connections === null ? new MemoryOperatorSignals() : new RedisOperatorSignals(connections);
  metrics.exposeSignals(() => signals.totals());
  const channels = new ChannelRegistry();
  // No binding may name a channel's variable (a bot token) as its secret, whichever registry the caller gave.
  const verifiers = (options.verifiers ?? defaultVerifiers()).reserveVariables(CHANNEL_VARIABLE_PREFIXES);
  const auth = new TokenAuthenticator(config.tokens);
  // The channels' state port: on the deployment's Redis (shared by every process) or in this process.
  const channelState = connections === null ? new MemoryChannelState() : new RedisChannelState(connections);
  const plugins: ChannelPlugin[] = [
    ...channelsFromConfig(channelSettings(config), logger, channelState, { requireWrite: auth.require('write') }),
    ...(options.plugins ?? []),
  ];
  try {
    for (const plugin of plugins) channels.register(plugin);
    checkRouteChannels(config, plugins);
  } catch (err) {
    // Nothing is started yet but the store: close it, so a refused start leaves no connection behind.
    await stopChannels(plugins, logger);
    await store.close();
    await connections?.close();
    throw err;
  }
  // Parked runs' checkpoints in PostgreSQL when ASKGATE_CHECKPOINT_URL is set: migrated before anything can park.
  let checkpointer: PostgresCheckpointer | null = null;
  if (config.checkpointPostgres !== null) {
    try {
      checkpointer = await openPostgresCheckpointer(
        config.checkpointPostgres,
        config.retentionWaitingMinutes * 60_000,
        metrics,
        logger,
        options.workers ?? true,
      );
    } catch (err) {
      await stopChannels(plugins, logger);
      await store.close();
      await connections?.close();
      throw err;
    }
  }
  // The core takes its ports at construction: the store, the channels, the park side (null on the in-memory store).
  // Handler jobs this process adds are taken at once by its own claims when a worker waits for them.
  const arrivals = new HandlerArrivals();
  const parks = await startParks(
    config,
    store,
    logger,
    options.workers ?? true,
    plugins,
    connections,
    checkpointer?.checkpoints ?? null,
    arrivals,
  );
  const followUps = startFollowUps(config, store, logger, options.workers ?? true, plugins, connections);
  const service = new InteractionService({
    store,
    hub,
    channels,
    settings: config,
    metrics,
    logger,
    verifiers,
    parks: parks.service,
    followUps: followUps.scheduler,
  });
  parks.startWorkers(service);
  // Handler workers claim continuations over HTTP (the continuation doors); the claims run on the BullMQ connection.
  const claims =
    parks.service !== null && connections !== null
      ? new CheckpointClaims(
          new BullHandlerClaims({
            connection: connections.queue(),
            shardKeys: connections.shardKeys,
            lockMs: config.resumeLockMs,
            backoffMs: config.resumeBackoffMs,
            runRetentionMs: config.retentionWaitingMinutes * 60_000,
            logger,
            arrivals,
            sendNextAtOnce: () => connections.sendNextQueueCommandAtOnce(),
          }),
          checkpointer?.checkpoints ?? null,
        )
      : null;
  followUps.startWorker({ deliverToSurface: (record, target) => service.deliverToSurface(record, target) });
  const callbacks = new CallbackService({ store, service, verifiers, env: config.env, logger });
  // Confirmations keep bridge jobs behind their own port: BullMQ on the process's queue connection, or none in memory.
  const confirmationJobs =
    store.durable && connections !== null
      ? new BullConfirmationJobs({
          connection: connections.queue(),
          prefix: connections.keys.queuePrefix,
          logger,
          ladder: BRIDGE_LADDER,
        })
      : null;
  const confirmations = await startConfirmations({
    config,
    store,
    service,
    callbacks,
    logger,
    workers: options.workers ?? true,
    jobs: confirmationJobs,
    signals,
  });

  const conversations = parks.conversations;
  // Signed action links, made by channels through the core port and answered at /a/{token}; none without a secret.
  const links =
    config.linkSecret === null || config.publicBaseUrl === null
      ? null
      : new ActionLinks(config.linkSecret, config.publicBaseUrl);
  const core = channelCore(
    service,
    store,
    hub,
    channelState.dedupe,
    conversations === null ? undefined : (turn) => conversations.converse(turn),
    links,
  );
  const { app, mcp } = httpApp({
    config,
    logger,
    auth,
    store,
    hub,
    metrics,
    signals,
    service,
    callbacks,
    parks: parks.service,
    claims,
    confirmations,
    readiness: checkpointer?.readiness ?? null,
    plugins,
    channelNames: channels.names(),
    core,
    links,
  });

  // The channels' start hooks, in order, once every part they may reach is built; close stops them in reverse.
  const started: ChannelPlugin[] = [];
  const startContext = { workers: options.workers ?? true, core };
  let server: Server | null = null;
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping = false;
  if (options.workers ?? true) {
    sweeper = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      service
        .expireDue()
        .catch((err: unknown) =>
          logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'deadline sweep failed'),
        )
        .finally(() => {
          sweeping = false;
        });
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  }

  const gateway: Gateway = {
    config,
    store,
    service,
    callbacks,
    hub,
    channels,
    app,
    logger,
    listen() {
      return new Promise((resolve, reject) => {
        // The plain answer and ask requests are served ahead of express (src/doors/fast-door.ts); express serves the
        // rest, including those doors' refusals of auth.
        const fast = fastDoors(hotDoors(service, claims), auth, logger);
        const s = createServer((req, res) => {
          if (!fast(req, res)) app(req, res);
        });
        s.once('error', reject);
        s.listen(config.port, config.host, () => {
          s.off('error', reject);
          const { port } = s.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve(`http://${host}:${port}`);
        });
        server = s;
      });
    },
    async close() {
      if (sweeper !== null) clearInterval(sweeper);
      await mcp.close();
      if (server !== null) {
        const s: Server = server;
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await claims?.close();
      // Every channel, the never-started ones too (their constructors may hold timers), the last started first.
      await stopChannels([...started, ...plugins.filter((p) => !started.includes(p))], logger);
      hub.close();
      signals.close();
      await confirmations.close();
      await followUps.close();
      await parks.close();
      await checkpointer?.close();
      await store.close();
      await connections?.close();
    },
  };
  for (const plugin of plugins) {
    try {
      await plugin.start?.(startContext);
    } catch (err) {
      await gateway.close();
      throw err;
    }
    started.unshift(plugin);
  }
  return gateway;
}
