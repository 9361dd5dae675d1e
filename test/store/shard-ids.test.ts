import { describe, expect, it } from 'vitest';
import { interactionIdInShard, shardOfId, shardOfName } from '../../src/core/shard-ids.js';
import { Keys, isShardablePrefix, shardPrefix } from '../../src/store/keys.js';

describe('shard ids', () => {
  it('mints plain ids in shard 0 and marked ids in shard k, and reads the shard back', () => {
    const plain = interactionIdInShard(0);
    expect(plain).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
    expect(shardOfId(plain, 1)).toBe(0);
    expect(shardOfId(plain, 12)).toBe(0);
    const marked = interactionIdInShard(11);
    expect(marked).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}\.11$/);
    expect(shardOfId(marked, 12)).toBe(11);
  });

  it('reads a mark that names no configured shard as none (not found), never an error', () => {
    const base = interactionIdInShard(0);
    for (const id of [`${base}.4`, `${base}.0`, `${base}.04`, `${base}.x`, `${base}.`, `${base}.-1`, `${base}.9999`]) {
      expect(shardOfId(id, 4), id).toBeNull();
    }
    expect(shardOfId(`${base}.3`, 4)).toBe(3);
  });

  it('hashes a name to one stable shard, spreading names over all of them', () => {
    expect(shardOfName('group-a', 1)).toBe(0);
    // docs/scaling.md: "shard FNV-1a(group_id) mod N". FNV-1a 32-bit of the UTF-8 bytes, worked out apart from the
    // product: "group-a" → 0x3dc7b156, "deploys" → 0x2d98d977, "run-7" → 0x3a9d54d6.
    expect(shardOfName('group-a', 12)).toBe(0x3dc7b156 % 12);
    expect(shardOfName('group-a', 4)).toBe(2);
    expect(shardOfName('deploys', 12)).toBe(11);
    expect(shardOfName('run-7', 12)).toBe(6);
    const seen = new Set(Array.from({ length: 500 }, (_, i) => shardOfName(`run-${i}`, 12)));
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});

describe('Keys per shard', () => {
  it('keeps the deployment prefix for shard 0 and tags shard k as {T:k}:', () => {
    const keys = new Keys('{askgate}:');
    expect(keys.forShard(0)).toBe(keys);
    expect(keys.forShard(3).interaction('abc.3')).toBe('{askgate:3}:i:abc.3');
    expect(keys.forShard(3).pending).toBe('{askgate:3}:pending');
    expect(keys.forShard(3).forShard(0).prefix).toBe('{askgate}:');
    // The deployment-wide record lives in shard 0 whichever shard's keys name it.
    expect(keys.forShard(5).shardCount).toBe('{askgate}:shards');
    expect(shardPrefix('{ag}:', 2)).toBe('{ag:2}:');
  });

  it('refuses shard k ≥ 1 of a prefix that is not {name}:', () => {
    expect(isShardablePrefix('{askgate}:')).toBe(true);
    expect(isShardablePrefix('askgate:')).toBe(false);
    expect(isShardablePrefix('x{askgate}:')).toBe(false);
    expect(() => new Keys('askgate:').forShard(1)).toThrow(/form \{name\}:/);
    expect(new Keys('askgate:').forShard(0).prefix).toBe('askgate:');
  });
});
