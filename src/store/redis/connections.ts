import { Redis, type RedisOptions } from 'ioredis';
import { AskgateError } from '../../core/errors.js';
import { Keys } from '../keys.js';
import { registerScripts, type ScriptClient } from './scripts/index.js';

/** Options of {@link RedisConnections}. */
export interface RedisConnectionsOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://...`. Required. */
  url: string;
  /** Prefix of every key, queue and the events channel. Default `{askgate}:` (a Redis Cluster hash tag). */
  prefix?: string;
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
 * | connection   | used by                                                       | why its own                      |
 * |--------------|---------------------------------------------------------------|----------------------------------|
 * | `command()`  | the interaction store, the run store, Telegram's shared pacing | — (every script is registered on it; auto-pipelined) |
 * | `subscriber()`| the store's events listener                                  | a subscribed connection runs nothing else |
 * | `queue()`    | every BullMQ Queue and Worker of the process                  | BullMQ needs `maxRetriesPerRequest: null` |
 * | `streamReader()` | the askgate worker's blocking reads of the completions stream (src/queue/completion-stream.ts) | a blocked connection runs nothing else |
 *
 * BullMQ opens one more per Worker, a duplicate of `queue()` for its blocking reads; nothing else opens any.
 * Each connection is opened on first use, so a process opens only the kinds it uses (docs/architecture.md counts
 * them per process). `close()` closes every connection this factory opened.
 */
export class RedisConnections {
  /** The key names of this deployment (its prefix). */
  readonly keys: Keys;
  readonly url: string;
  private commandClient: ScriptClient | null = null;
  private subscriberClient: Redis | null = null;
  private queueClient: Redis | null = null;
  private streamReaderClient: Redis | null = null;
  private readonly connecting = new Map<Redis, Promise<void>>();

  constructor(private readonly options: RedisConnectionsOptions) {
    this.url = options.url;
    this.keys = new Keys(options.prefix);
  }

  /** The command connection, with every Lua script registered (scripts/index.ts). */
  command(): ScriptClient {
    // The command connection pipelines automatically: the commands of one event-loop tick (many doors' claims under
    // load) leave in one write and come back in one read. Order and atomicity per command are unchanged.
    this.commandClient ??= registerScripts(
      this.open({ ...DEFAULT_REDIS_OPTIONS, enableAutoPipelining: true, ...this.options.redisOptions }),
    );
    return this.commandClient;
  }

  /** The pub/sub connection of the store's events. */
  subscriber(): Redis {
    this.subscriberClient ??= this.open({ ...DEFAULT_REDIS_OPTIONS, ...this.options.redisOptions });
    return this.subscriberClient;
  }

  /** The BullMQ connection: Queues and Workers share it (a Worker duplicates it for its blocking reads). */
  queue(): Redis {
    // Blocking commands must not give up, so BullMQ refuses a connection with a per-request retry limit.
    this.queueClient ??= this.open({ maxRetriesPerRequest: null });
    return this.queueClient;
  }

  /**
   * The connection of the completions stream's blocking reads (XREADGROUP … BLOCK). Like BullMQ's, it must wait
   * through reconnects rather than fail a read, so it has no per-request retry limit.
   */
  streamReader(): Redis {
    this.streamReaderClient ??= this.open({ maxRetriesPerRequest: null });
    return this.streamReaderClient;
  }

  /**
   * Connects `connection` (one of this factory's) now, so an unreachable Redis fails at start rather than on the
   * first request; concurrent callers share one attempt. Rejects with `store_unavailable` naming the URL, redacted.
   */
  async connect(connection: Redis): Promise<void> {
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
    return [this.commandClient, this.subscriberClient, this.queueClient, this.streamReaderClient].filter(
      (c) => c !== null,
    ).length;
  }

  /** Closes every connection opened here: QUIT when connected (in-flight replies still arrive), else drop at once. */
  async close(): Promise<void> {
    // A reader blocked in XREADGROUP would hold QUIT back until its BLOCK ends: drop it at once.
    this.streamReaderClient?.disconnect();
    const open = [this.subscriberClient, this.commandClient, this.queueClient].filter((c): c is Redis => c !== null);
    this.subscriberClient = this.commandClient = this.queueClient = this.streamReaderClient = null;
    await Promise.all(open.map(closeConnection));
  }

  private open(options: RedisOptions): Redis {
    const connection = new Redis(this.url, options);
    // Without a listener ioredis prints every reconnect error to the console.
    connection.on('error', this.options.onError ?? (() => undefined));
    return connection;
  }
}

async function closeConnection(connection: Redis): Promise<void> {
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
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
