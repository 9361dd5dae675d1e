import type { RedisOptions } from 'ioredis';
import type { Keys } from '../keys.js';
import type { StoreOptions } from '../store.js';
import type { RedisConnections } from './connections.js';

/** How a RedisStore connects (redis-store.ts): its URL or the process's connections, its keys, its timings. */
export interface RedisStoreOptions extends StoreOptions {
  /** `redis://[:password@]host:port[/db]`, `rediss://...` or `redis+cluster://...`; ignored when `connections` is given. */
  url: string;
  /** Prefix of every key and of the events channel. Default `{askgate}:`; ignored when `connections` is given. */
  prefix?: string;
  /**
   * The process's connection factory (connections.ts): the store takes its command and subscriber connections
   * from it and leaves closing them to its owner. Absent: the store makes its own factory and closes it.
   */
  connections?: RedisConnections;
  /**
   * The keys this store names: one shard's (keys.ts, `forShard`) when a router spreads the deployment over shards
   * (sharded-store.ts). Default: the connections' keys (shard 0, the deployment prefix).
   */
  keys?: Keys;
  /** Told about connection errors while ioredis reconnects (they are retried, not thrown). Default: ignored. */
  onConnectionError?: (error: Error) => void;
  /** How long `ping()` waits for PONG. Default 2000 ms. */
  pingTimeoutMs?: number;
  /** How long the events channel stays subscribed after its last listener leaves. Default 30 s (event-subscription.ts). */
  eventsLingerMs?: number;
  /**
   * How long a parked run's hash lives after its last write (the checkpoint retention). Default 7 days, the
   * default of LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES.
   */
  runRetentionMs?: number;
  /** Extra ioredis options, applied over askgate's defaults (bounded reconnect backoff, 3 retries per command). */
  redisOptions?: RedisOptions;
}
