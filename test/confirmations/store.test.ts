import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { Store } from '../../src/store/store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** Presets (every version, who, when) and the seen-set, the same on both stores. */

let redis: RedisServerHandle;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const stores: Array<[string, () => Promise<Store>]> = [
  ['MemoryStore', async () => new MemoryStore({ idleTtlSeconds: 60 })],
  [
    'RedisStore',
    () =>
      RedisStore.connect({
        url: redis.url,
        prefix: `{st-${Math.random().toString(36).slice(2)}}:`,
        idleTtlSeconds: 60,
      }),
  ],
];

describe.each(stores)('%s', (_name, make) => {
  it('appends preset versions, numbered from 1 under concurrent writers, and returns them oldest first', async () => {
    const store = await make();
    try {
      expect(await store.presetVersions('p')).toEqual([]);
      const at = '2026-01-01T00:00:00.000Z';
      const numbers = await Promise.all(
        [1, 2, 3].map((n) => store.appendPreset('p', { body: { ask: { n } }, written_by: `w${n}`, written_at: at })),
      );
      expect([...numbers].sort()).toEqual([1, 2, 3]);
      const versions = await store.presetVersions('p');
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
      for (const v of versions) {
        const n = (v.body['ask'] as { n: number }).n;
        expect(numbers[n - 1]).toBe(v.version);
        expect(v).toEqual({ version: v.version, body: { ask: { n } }, written_by: `w${n}`, written_at: at });
      }
      expect(await store.presetVersions('other')).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('claims a seen key once while its time lasts, and forgets it when told', async () => {
    const store = await make();
    try {
      // A minute: far longer than this test takes on any host, so "once" is judged by order alone.
      expect(await store.markSeen('stripe:evt_1', 60_000)).toBe(true);
      expect(await store.markSeen('stripe:evt_1', 60_000)).toBe(false);
      expect(await store.markSeen('stripe:evt_2', 60_000)).toBe(true);
      await store.unmarkSeen('stripe:evt_1');
      expect(await store.markSeen('stripe:evt_1', 60_000)).toBe(true);
      expect(await store.markSeen('stripe:evt_2', 60_000)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('lets a claim run out after its time, never before', async () => {
    const store = await make();
    try {
      const claimed = Date.now();
      expect(await store.markSeen('stripe:evt_3', 300)).toBe(true);
      // Polled until it can be claimed again: a loaded host only makes that later, and a claim that never runs out
      // fails the bound.
      let again = false;
      while (!again && Date.now() - claimed < 20_000) {
        again = await store.markSeen('stripe:evt_3', 300);
        if (!again) await new Promise((r) => setTimeout(r, 20));
      }
      expect(again).toBe(true);
      expect(Date.now() - claimed).toBeGreaterThanOrEqual(300);
    } finally {
      await store.close();
    }
  });
});
