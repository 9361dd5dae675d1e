import { describe, expect, it } from 'vitest';
import { poolRandomBytes } from '../../src/core/random-pool.js';

describe('pooled CSPRNG bytes', () => {
  it('hands each byte out once: draws across many pools never repeat, and an earlier draw never changes', () => {
    const first = poolRandomBytes(32);
    const kept = Buffer.from(first);
    // 1,000 draws of 12 and 32 bytes cross ~11 pools of 4 KiB.
    const draws = Array.from({ length: 1000 }, (_, i) => poolRandomBytes(i % 2 === 0 ? 12 : 32).toString('hex'));
    expect(new Set(draws).size).toBe(draws.length);
    expect(first.equals(kept)).toBe(true);
  });

  it('gives the size asked for, a large one straight from the CSPRNG', () => {
    expect(poolRandomBytes(12)).toHaveLength(12);
    expect(poolRandomBytes(5000)).toHaveLength(5000);
    // Not all zero: the bytes are random (a zeroed buffer would be 4,096 equal bytes).
    expect(new Set(poolRandomBytes(4096)).size).toBeGreaterThan(200);
  });
});
