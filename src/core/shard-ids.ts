import { newInteractionId } from './ids.js';

/**
 * Which shard an interaction id, a group or a run lives in (docs/scaling.md, "Shards"). Pure functions: the store's
 * router, the doors and the workers all read a shard the same way, and a single Redis (one shard) sees plain ids.
 *
 * An interaction id says its shard: shard 0's ids are the plain 16-character base64url ids askgate always minted,
 * shard k ≥ 1's are `<16 chars>.<k>` (k in decimal). Any id without `.` is shard 0, the one shard of a deployment
 * that runs a single Redis. Groups and runs are named by their callers, so their shard is a hash of the name (`shardOfName`).
 */

/** What separates an id from its shard mark. base64url never contains it, so the split is unambiguous. */
export const SHARD_MARK = '.';

/** A fresh interaction id in shard `shard` (0: the plain id). */
export function interactionIdInShard(shard: number): string {
  const id = newInteractionId();
  return shard === 0 ? id : `${id}${SHARD_MARK}${shard}`;
}

/**
 * The shard an interaction id names, or null when it names none of the `shards` shards (a mark of 0, with a leading
 * zero, not a number, or at or beyond the count): such an id is not found, never an error.
 */
export function shardOfId(id: string, shards: number): number | null {
  const at = id.lastIndexOf(SHARD_MARK);
  if (at === -1) return 0;
  const mark = id.slice(at + 1);
  if (!/^[1-9]\d{0,2}$/.test(mark)) return null;
  const shard = Number(mark);
  return shard < shards ? shard : null;
}

/**
 * The shard of a caller-chosen name (a group id, a run id) among `shards`: FNV-1a (32-bit) of its UTF-8 bytes, mod
 * the count. Stable across processes and versions — changing it would move every group and run.
 */
export function shardOfName(name: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
