import type { Keys } from '../keys.js';
import type { RedisClient } from './connections.js';

/**
 * The deployment's recorded shard count (`shards` and `shards:was` in shard 0, keys.ts): written at start by the
 * gateway, read by the run locator. The count only grows: a start with fewer shards than recorded is refused (the
 * questions and runs of the dropped shards would be orphaned), a start with more raises it and keeps the old count
 * in `shards:was`, where runs parked before the move are still looked up (src/store/redis/sharded-runs.ts).
 */
export interface ShardRecord {
  /** The count recorded before this call (1 when none was: a store written before shards is one shard). */
  recorded: number;
  /** Every count the deployment had before its current one, ascending (without the current one). */
  earlier: number[];
}

/**
 * Raises the recorded count to `configured` (one atomic step); with `configured` = 1 and nothing recorded, writes
 * nothing, so a single-shard store gains no key. A store with nothing recorded that holds asks or runs counts as
 * one shard (kept in `shards:was`); a fresh one has no earlier count. `recorded > configured` is refused: nothing changes, and the
 * caller must not start (the gateway throws a ConfigError naming ASKGATE_SHARDS).
 */
const RECORD_SHARDS = `
local raw = redis.call('GET', KEYS[1])
local recorded = tonumber(raw or '1')
local configured = tonumber(ARGV[1])
if recorded < configured then
  -- Nothing recorded: a store that already holds asks or runs was one shard (it stays shard 0 of the new count);
  -- a fresh store had no earlier count, and its runs need no look-up beyond their own shard.
  local used = raw or redis.call('EXISTS', KEYS[3], KEYS[4], KEYS[5], KEYS[6]) > 0
  if used then redis.call('SADD', KEYS[2], recorded) end
  redis.call('SET', KEYS[1], configured)
end
local earlier = redis.call('SMEMBERS', KEYS[2])
return { recorded, earlier }
`;

/** Records `configured` as described above; the caller refuses to start when `ok` is false. */
export async function recordShards(
  client: RedisClient,
  keys: Keys,
  configured: number,
): Promise<ShardRecord & { ok: boolean }> {
  const home = keys.forShard(0);
  const [recorded, earlier] = (await client.eval(
    RECORD_SHARDS,
    6,
    keys.shardCount,
    keys.earlierShardCounts,
    // What a store that held asks or runs has (keys.ts): its sequence, pending list, deadlines, ready runs.
    home.seq,
    home.pending,
    home.deadlines,
    home.readyRuns,
    configured,
  )) as [number, string[]];
  return { ok: recorded <= configured, recorded, earlier: counts(earlier, Math.max(recorded, configured)) };
}

/** The recorded count and the earlier ones: which shards exist (1 when none recorded). */
export async function readShards(client: RedisClient, keys: Keys): Promise<{ shards: number; earlier: number[] }> {
  const [raw, earlier] = await Promise.all([client.get(keys.shardCount), client.smembers(keys.earlierShardCounts)]);
  const shards = raw === null ? 1 : Number(raw);
  return { shards, earlier: counts(earlier, shards) };
}

/** The distinct counts below `current`, ascending. */
function counts(raw: readonly string[], current: number): number[] {
  return [...new Set(raw.map(Number))]
    .filter((n) => Number.isInteger(n) && n >= 1 && n < current)
    .sort((a, b) => a - b);
}

/** The one-line refusal of a start with fewer shards than recorded. */
export function shrinkRefusal(recorded: number, configured: number): string {
  return (
    `is ${configured}, but this store already spreads questions and runs over ${recorded} shards (recorded in its ` +
    `"shards" key); fewer would orphan shards ${configured}..${recorded - 1}: set ASKGATE_SHARDS=${recorded} ` +
    '(shards cannot be removed).'
  );
}
