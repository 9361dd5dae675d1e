import { shardOfId, shardOfName } from '../core/shard-ids.js';
import type { Keys } from '../store/keys.js';

/**
 * Where BullMQ jobs and completion reports live when the store is spread over `ASKGATE_SHARDS` = N hash tags
 * (docs/scaling.md, "Queues per shard"): every queue and the completions stream exist once per shard, under that
 * shard's tag (`{askgate}:resume`, `{askgate:1}:resume`, …), so a Redis Cluster spreads queue load over its masters
 * as it spreads the data. A job goes to the queues of the shard its run (or its question) lives in; every askgate
 * worker and every SDK worker works the queues of every shard. With N = 1 there is one set, named exactly as before
 * shards existed.
 *
 * Which shard is which is the store's rule (src/store/keys.ts); this is the queue side's view of it, handed in by the
 * wiring, so nothing under src/queue/ decides where a key lives.
 */
export interface QueueShards {
  /** The keys of every shard, shard 0 first: shard k's queues live under `keys[k].queuePrefix`. */
  readonly keys: readonly Keys[];
  /**
   * The shard a run lives in: its resume, handler, turn and reply jobs go to that shard's queues. Where the run is,
   * not where its id would go today: a run parked before the deployment grew keeps its jobs where it lives, so every
   * enqueue of one job — before and after the move — meets the same queue (a job id dedupes within one queue only).
   */
  ofRun(runId: string): number | Promise<number>;
  /** The shard a question lives in (its id says it): its follow-up jobs go to that shard's queue. */
  ofInteraction(id: string): number;
}

/** One shard: everything lives under `keys` (N = 1, or a process that only ever looks at shard 0). */
export function singleShard(keys: Keys): QueueShards {
  return { keys: [keys], ofRun: () => 0, ofInteraction: () => 0 };
}

/** The queue prefix of every shard, shard 0 first. */
export function queuePrefixes(shards: QueueShards): string[] {
  return shards.keys.map((k) => k.queuePrefix);
}

/** The keys of shard `k`; a shard beyond the configured count is a bug of the caller's routing, said plainly. */
export function shardKeys(shards: QueueShards, k: number): Keys {
  const keys = shards.keys[k];
  if (keys === undefined)
    throw new Error(`shard ${k} is beyond the ${shards.keys.length} configured (ASKGATE_SHARDS); no queue there.`);
  return keys;
}

/** Where a run lives (the run store's locator, src/store/redis/run-locator.ts). */
export interface RunShardLocator {
  shardOf(runId: string): Promise<number>;
}

/**
 * The queue side's view of the shards `shardKeys` (RedisConnections.shardKeys: index = shard): a run's shard is
 * where `runs` finds it (or, for a new run id, where the run store will put it: `shardOfName` at the current count);
 * a question's is the mark of its id (`shardOfId`; an id naming no configured shard cannot belong to a stored
 * question, and falls to shard 0).
 */
export function queueShardsOf(shardKeys: readonly Keys[], runs?: RunShardLocator): QueueShards {
  const n = shardKeys.length;
  const first = shardKeys[0];
  if (first === undefined) throw new Error('no shard keys: a deployment has at least shard 0.');
  if (n === 1) return singleShard(first);
  return {
    keys: shardKeys,
    ofRun: runs === undefined ? (runId) => shardOfName(runId, n) : (runId) => runs.shardOf(runId),
    ofInteraction: (id) => shardOfId(id, n) ?? 0,
  };
}
