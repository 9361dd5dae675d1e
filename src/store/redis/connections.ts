import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { AskgateError } from '../../core/errors.js';
import { Keys } from '../keys.js';
import { isClusterUrl, parseClusterUrl, redactClusterUrl } from './cluster-url.js';
import { type CoalescedWrites, coalesceWrites } from './write-coalescing.js';
import { registerScripts, type ScriptClient } from './scripts/index.js';

/**
 * A connection of either shape: one Redis, or an ioredis `Cluster` (when the URL is `redis+cluster://`). Both run the
 * same commands and scripts; a Cluster routes each to the master of its key's slot.
 */
export type RedisClient = Redis | Cluster;

/** Options of {@link RedisConnections}. */
export interface RedisConnectionsOptions {
  /**
   * `redis://[:password@]host:port[/db]`, `rediss://...`, or `redis+cluster://[[user]:password@]host:port,host:port,…`
   * (the seed nodes of a Redis Cluster). Required.
   */
  url: string;
  /**
   * After an answer's claim, wait until this many replicas hold it before the claim returns (Redis `WAIT`); 0 (the
   * default) does not wait. See {@link RedisConnections.replicated}.
   */
  waitReplicas?: number;
  /** How long one `WAIT` may take, ms. Default 1000. */
  waitTimeoutMs?: number;
  /** Prefix of every key, queue and the events channel. Default `{askgate}:` (a Redis Cluster hash tag). */
  prefix?: string;
  /**
   * How many shards the deployment spreads questions and runs over (ASKGATE_SHARDS, 1..64); default 1. Shard k's
   * keys are `shardKeys[k]` (keys.ts); connections are shared by every shard.
   */
  shards?: number;
  /** Told about connection errors while ioredis reconnects (they are retried, not thrown). Default: ignored. */
  onError?: (error: Error) => void;
  /**
   * Extra ioredis options for the command and subscriber connections, over askgate's defaults (bounded reconnect
   * backoff, three retries per command). The BullMQ connection keeps BullMQ's requirements.
   */
  redisOptions?: RedisOptions;
}

/** Reconnect quickly after a blip, but never hammer a Redis that is down: 100 ms more per attempt, at most 1 s. */
const DEFAULT_REDIS_OPTIONS: RedisOptions = {
  lazyConnect: true,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  // A command waits through at most three reconnect attempts, then fails as store_unavailable instead of hanging.
  maxRetriesPerRequest: 3,
};

/**
 * The one connection factory: every Redis connection askgate opens comes from here, and there are three kinds.
 *
 * - `command()`: the interaction store, the run store, Telegram's shared pacing — every script is registered on it,
 *   its writes coalesced per turn;
 * - `subscriber()`: the store's events listener — a subscribed connection runs nothing else;
 * - `queue()`: every BullMQ Queue and Worker of the process — BullMQ needs `maxRetriesPerRequest: null`; its writes
 *   coalesced per turn too (a Worker's blocking duplicate is not);
 * - `streamReader(k)`: the askgate worker's blocking reads of shard k's completions stream
 *   (src/queue/completion-stream.ts) — a blocked connection runs nothing else; one per shard.
 *
 * BullMQ opens one more per Worker, a duplicate of `queue()` for its blocking reads; nothing else opens any. With
 * ASKGATE_SHARDS = N an askgate worker runs one Worker per queue and shard and one stream reader per shard, so those
 * blocking connections grow with N; the first three kinds do not (docs/architecture.md counts them).
 * Each connection is opened on first use, so a process opens only the kinds it uses (docs/architecture.md counts
 * them per process). `close()` closes every connection this factory opened.
 *
 * With a `redis+cluster://` URL each kind is an ioredis `Cluster` instead of one `Redis`: it holds one socket per
 * cluster node it talks to (the master of askgate's slot, plus the node it reads the slot table from), so the socket
 * count per kind grows with the cluster while the count of kinds stays three (docs/scaling.md).
 */
export class RedisConnections {
  /** The key names of this deployment (its prefix): shard 0's keys, and the deployment-wide ones. */
  readonly keys: Keys;
  /** The keys of every shard, index = shard number (`shardKeys[0]` is `keys`); one entry when there are no shards. */
  readonly shardKeys: readonly Keys[];
  readonly url: string;
  /** Whether the URL names a Redis Cluster. */
  readonly cluster: boolean;
  private commandClient: ScriptClient | null = null;
  private subscriberClient: RedisClient | null = null;
  private queueClient: RedisClient | null = null;
  private queueWrites: CoalescedWrites | null = null;
  /** The completions stream readers, one per shard read (index = shard). */
  private readonly streamReaderClients: Array<RedisClient | undefined> = [];
  private readonly connecting = new Map<RedisClient, Promise<void>>();

  constructor(private readonly options: RedisConnectionsOptions) {
    this.url = options.url;
    this.cluster = isClusterUrl(options.url);
    this.keys = new Keys(options.prefix);
    this.shardKeys = Array.from({ length: options.shards ?? 1 }, (_, k) => this.keys.forShard(k));
  }

  /** The command connection, with every Lua script registered (scripts/index.ts). */
  command(): ScriptClient {
    // The commands of one event-loop turn (many doors' claims under load) leave in one write and come back in one
    // read: on one Redis by coalescing the socket's writes (write-coalescing.ts, no limit on batches in flight), on a
    // Cluster by ioredis' auto-pipelining per node. Order and atomicity per command are unchanged.
    if (this.commandClient === null) {
      const options = { ...DEFAULT_REDIS_OPTIONS, ...this.options.redisOptions };
      const client = this.open(options, { lazy: true, autoPipelining: this.cluster });
      if (client instanceof Redis) coalesceWrites(client);
      this.commandClient = registerScripts(client);
    }
    return this.commandClient;
  }

  /** The pub/sub connection of the store's events. */
  subscriber(): RedisClient {
    this.subscriberClient ??= this.open({ ...DEFAULT_REDIS_OPTIONS, ...this.options.redisOptions }, { lazy: true });
    return this.subscriberClient;
  }

  /** The BullMQ connection: Queues and Workers share it (a Worker duplicates it for its blocking reads). */
  queue(): RedisClient {
    // Blocking commands must not give up, so BullMQ refuses a connection with a per-request retry limit.
    // Writes coalesced per turn as on the command connection: the commands of the claims and reports served in one
    // turn leave in one write.
    if (this.queueClient === null) {
      const client = this.open({ maxRetriesPerRequest: null }, { lazy: false });
      if (client instanceof Redis) this.queueWrites = coalesceWrites(client);
      this.queueClient = client;
    }
    return this.queueClient;
  }

  /**
   * The next command on the BullMQ connection leaves at once rather than at the end of the turn (write-coalescing.ts),
   * then `afterSent` runs. On a Cluster, where ioredis pipelines per node, there is nothing to hurry: `afterSent`
   * runs once this turn's commands are sent.
   */
  sendNextQueueCommandAtOnce(afterSent?: () => void): void {
    if (this.queueWrites !== null) this.queueWrites.sendNextAtOnce(afterSent);
    else if (afterSent !== undefined) setImmediate(afterSent);
  }

  /**
   * Resolves once `waitReplicas` replicas hold every write the command connection made so far to the node that
   * serves `key` (Redis `WAIT`), so a claim acknowledged after it survives that master's failover. A no-op when
   * `waitReplicas` is 0. Rejects with `store_unavailable` when fewer replicas confirm within `waitTimeoutMs`: the
   * write is done on the master but not yet safe, and the caller must not acknowledge it as safe.
   */
  /** Whether a claim waits for replicas (ASKGATE_REDIS_WAIT_REPLICAS ≥ 1): a claim skips the call when not. */
  get waitsForReplicas(): boolean {
    return (this.options.waitReplicas ?? 0) > 0;
  }

  async replicated(key: string): Promise<void> {
    const wanted = this.options.waitReplicas ?? 0;
    if (wanted <= 0) return;
    const timeoutMs = this.options.waitTimeoutMs ?? 1000;
    // WAIT counts the writes of the connection it is sent on. Piped behind a read of `key`, a Cluster sends it on its
    // socket to the master of key's slot — the socket that carried the claim; a single Redis has one socket anyway.
    const replies = await this.command().pipeline().exists(key).wait(wanted, timeoutMs).exec();
    const [error, acked] = replies?.[1] ?? [new Error('no reply to WAIT'), 0];
    if (error !== null) throw error;
    if (typeof acked !== 'number' || acked < wanted) {
      throw new AskgateError(
        'store_unavailable',
        `the write reached Redis but ${String(acked)} of ${wanted} replicas confirmed it within ${timeoutMs} ms ` +
          '(ASKGATE_REDIS_WAIT_REPLICAS); retry.',
      );
    }
  }

  /**
   * The connection of the blocking reads (XREADGROUP … BLOCK) of shard `shard`'s completions stream: one per shard,
   * because a blocked connection waits on one slot's stream (a Cluster refuses one read across slots). Like BullMQ's,
   * it must wait through reconnects rather than fail a read, so it has no per-request retry limit.
   */
  streamReader(shard = 0): RedisClient {
    let reader = this.streamReaderClients[shard];
    if (reader === undefined) {
      reader = this.open({ maxRetriesPerRequest: null }, { lazy: false });
      this.streamReaderClients[shard] = reader;
    }
    return reader;
  }

  /**
   * Connects `connection` (one of this factory's) now, so an unreachable Redis fails at start rather than on the
   * first request; concurrent callers share one attempt. Rejects with `store_unavailable` naming the URL, redacted.
   */
  async connect(connection: RedisClient): Promise<void> {
    let attempt = this.connecting.get(connection);
    if (attempt === undefined) {
      attempt = (connection.status === 'wait' ? connection.connect() : connection.ping().then(() => undefined)).catch(
        (error: unknown) => {
          throw new AskgateError(
            'store_unavailable',
            `cannot reach Redis at ${redactUrl(this.url)}; check REDIS_URL.`,
            {
              cause: error,
            },
          );
        },
      );
      this.connecting.set(connection, attempt);
    }
    await attempt;
  }

  /** How many connections this factory has opened (BullMQ's blocking duplicates not included). */
  get opened(): number {
    const readers = this.streamReaderClients.filter((c) => c !== undefined).length;
    return [this.commandClient, this.subscriberClient, this.queueClient].filter((c) => c !== null).length + readers;
  }

  /** Closes every connection opened here: QUIT when connected (in-flight replies still arrive), else drop at once. */
  async close(): Promise<void> {
    // A reader blocked in XREADGROUP would hold QUIT back until its BLOCK ends: drop it at once.
    for (const reader of this.streamReaderClients) reader?.disconnect();
    this.streamReaderClients.length = 0;
    const open = [this.subscriberClient, this.commandClient, this.queueClient].filter(
      (c): c is RedisClient => c !== null,
    );
    this.subscriberClient = this.commandClient = this.queueClient = null;
    await Promise.all(open.map(closeConnection));
  }

  private open(options: RedisOptions, how: { lazy: boolean; autoPipelining?: boolean }): RedisClient {
    const connection = this.cluster ? openCluster(this.url, options, how) : openSingle(this.url, options, how);
    // Without a listener ioredis prints every reconnect error to the console.
    connection.on('error', this.options.onError ?? (() => undefined));
    return connection;
  }
}

function openSingle(url: string, options: RedisOptions, how: { lazy: boolean; autoPipelining?: boolean }): Redis {
  // The caller's options (askgate's defaults, then `redisOptions`) have the last word, as before clusters.
  return new Redis(url, {
    ...(how.lazy ? { lazyConnect: true } : {}),
    ...(how.autoPipelining === true ? { enableAutoPipelining: true } : {}),
    ...options,
  });
}

/**
 * A Cluster over the URL's seed nodes. The per-node options (auth, per-request retries) go to every node's
 * connection; reconnecting is the Cluster's: after a failover it re-reads the slot table and follows the new master.
 */
function openCluster(url: string, options: RedisOptions, how: { lazy: boolean; autoPipelining?: boolean }): Cluster {
  const { nodes, username, password } = parseClusterUrl(url);
  // A node's own reconnect strategy gives way to the Cluster's (clusterRetryStrategy below); laziness and
  // auto-pipelining are the Cluster's to decide.
  const { retryStrategy: _retry, lazyConnect: _lazy, enableAutoPipelining: _auto, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    lazyConnect: how.lazy,
    enableAutoPipelining: how.autoPipelining === true,
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    // While a failover is under way the slot answers CLUSTERDOWN or is unreachable; retry through it for a while
    // (commands still fail after `maxRetriesPerRequest`, as on one Redis).
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    redisOptions: {
      ...nodeOptions,
      ...(username === null ? {} : { username }),
      ...(password === null ? {} : { password }),
    },
  };
  return new Cluster(nodes, clusterOptions);
}

async function closeConnection(connection: RedisClient): Promise<void> {
  if (connection.status === 'ready') {
    try {
      await connection.quit();
      return;
    } catch {
      // Fall through: the connection died while quitting.
    }
  }
  connection.disconnect();
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  if (isClusterUrl(url)) return redactClusterUrl(url);
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
