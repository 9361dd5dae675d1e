import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { shardOfId, shardOfName } from '../../src/core/shard-ids.js';
import type { RunSpec, StoredInteraction } from '../../src/core/types.js';
import { createGateway } from '../../src/gateway.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { RunLocator } from '../../src/store/redis/run-locator.js';
import { RedisRunStore } from '../../src/store/redis/run-store.js';
import { recordShards } from '../../src/store/redis/shard-record.js';
import { ShardedRunStore } from '../../src/store/redis/sharded-runs.js';
import { ShardedStore } from '../../src/store/redis/sharded-store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { runStoreContract } from './contract.js';
import { answer, lookupsUnder, makeInteraction, spreadFixtureIds } from './fixtures.js';

/**
 * ASKGATE_SHARDS on one redis-server: the merged pending list pages every question once, in order, with a stable
 * cursor while asks arrive; a store written with one shard keeps working after a restart with four (1 → N); and a
 * start with fewer shards than recorded is refused.
 */

let redis: RedisServerHandle;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await redis?.stop();
});

const prefix = (): string => `{sh${randomBytes(5).toString('hex')}}:`;

async function sharded(keyPrefix: string, shards: number) {
  const connections = new RedisConnections({ url: redis.url, prefix: keyPrefix, shards });
  const recorded = await recordShards(connections.command(), connections.keys, shards);
  expect(recorded.ok).toBe(true);
  const store = await ShardedStore.connect({ url: redis.url, connections, shards, idleTtlSeconds: 600 });
  const locator = new RunLocator(connections.command(), connections.shardKeys);
  const runs = new ShardedRunStore(
    connections.shardKeys.map((keys) => new RedisRunStore(connections, 600_000, 600_000, false, keys)),
    locator,
  );
  closers.push(async () => {
    await store.close();
    await connections.close();
  });
  return { store, runs, connections };
}

/** A fresh pending ask placed by the sharded store (random shard), created 1 ms after the previous fixture. */
async function ask(store: ShardedStore, overrides: Partial<StoredInteraction> = {}): Promise<StoredInteraction> {
  const id = await store.newInteractionId({ runId: null, groupId: overrides.group_id ?? null });
  const record = makeInteraction({ id, ...overrides });
  await store.create(record);
  return record;
}

const byAge = (a: StoredInteraction, b: StoredInteraction): number =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;

describe('ASKGATE_SHARDS=4 on one Redis: the store contract', () => {
  beforeAll(() => spreadFixtureIds(4));
  afterAll(() => spreadFixtureIds(1));
  runStoreContract('ShardedStore (4 shards) on one Redis', async (options) => {
    const keyPrefix = prefix();
    const connections = new RedisConnections({ url: redis.url, prefix: keyPrefix, shards: 4 });
    const store = await ShardedStore.connect({ url: redis.url, connections, shards: 4, ...options });
    const raw = connections.command();
    return {
      store,
      cleanup: async () => {
        await store.close();
        await connections.close();
      },
      recipientIndexes: async () => {
        const found: string[] = [];
        for (const keys of connections.shardKeys)
          found.push(...(await lookupsUnder(raw as Redis, keys.prefix)).recipients);
        return found.sort();
      },
      deliveryLookups: async () => {
        const found: string[] = [];
        for (const keys of connections.shardKeys)
          found.push(...(await lookupsUnder(raw as Redis, keys.prefix)).deliveries);
        return found.sort();
      },
    };
  });
});

describe('ASKGATE_SHARDS=4 on one Redis: the merged pending list', () => {
  it('pages every pending question exactly once, oldest first, with a stable cursor while new asks arrive', async () => {
    const { store } = await sharded(prefix(), 4);
    const initial: StoredInteraction[] = [];
    for (let i = 0; i < 40; i++) initial.push(await ask(store, { question: `q${i}` }));
    expect(new Set(initial.map((r) => shardOfId(r.id, 4))).size).toBe(4);

    const shown: StoredInteraction[] = [];
    const arrived: StoredInteraction[] = [];
    const resolved = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await store.listPending({ limit: 7, cursor, groupId: null });
      // The same cursor read again, nothing changed in between, gives the same page: the cursor is stable.
      const again = await store.listPending({ limit: 7, cursor, groupId: null });
      expect(again.items.map((r) => r.id)).toEqual(page.items.map((r) => r.id));
      expect(again.nextCursor).toBe(page.nextCursor);
      shown.push(...page.items);
      cursor = page.nextCursor;
      pages++;
      // Between pages: two new asks arrive, and one not yet shown is answered.
      if (pages <= 4) {
        arrived.push(await ask(store), await ask(store));
        const unseen = initial.find((r) => !shown.some((s) => s.id === r.id) && !resolved.has(r.id));
        if (unseen !== undefined) {
          await store.resolve(unseen.id, {
            status: 'answered',
            result: answer('x'),
            resolvedAt: new Date().toISOString(),
          });
          resolved.add(unseen.id);
        }
      }
    } while (cursor !== null && pages < 50);

    const ids = shown.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = [...initial, ...arrived].filter((r) => !resolved.has(r.id));
    expect([...ids].sort()).toEqual(expected.map((r) => r.id).sort());
    expect(shown).toEqual([...shown].sort(byAge));
    expect(resolved.size).toBe(4);
  });

  it('refuses a cursor with more positions than shards, and reads an id whose mark names no shard as not found', async () => {
    const { store } = await sharded(prefix(), 4);
    await expect(store.listPending({ limit: 5, cursor: '1.2.3.4.5', groupId: null })).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'cursor',
    });
    const stray = `${randomBytes(12).toString('base64url')}.9`;
    expect(await store.get(stray)).toBeNull();
    expect(
      await store.resolve(stray, { status: 'cancelled', result: null, resolvedAt: new Date().toISOString() }),
    ).toEqual({
      kind: 'not_found',
    });
    expect(await store.events(stray)).toBeNull();
  });

  it('keeps a group in one shard and a run with every ask it parks', async () => {
    const { store } = await sharded(prefix(), 4);
    const group = await Promise.all([1, 2, 3].map(() => ask(store, { group_id: 'release-7' })));
    expect(new Set(group.map((r) => shardOfId(r.id, 4))).size).toBe(1);
    const runIds = await Promise.all([1, 2, 3].map(() => store.newInteractionId({ runId: 'run-x', groupId: 'other' })));
    expect(new Set(runIds.map((id) => shardOfId(id, 4))).size).toBe(1);
    const listed = await store.listPending({ limit: 10, cursor: null, groupId: 'release-7' });
    expect(listed.items.map((r) => r.id)).toEqual(group.map((r) => r.id));
  });
});

describe('moving a live store from 1 shard to 4', () => {
  it('answers, lists, expires and resumes what was written with one shard, after a restart with four', async () => {
    const keyPrefix = prefix();
    // Written by a gateway with one shard: plain ids, every key under the deployment prefix.
    const one = await RedisStore.connect({ url: redis.url, prefix: keyPrefix, idleTtlSeconds: 600 });
    const oneRuns = await RedisRunStore.connect({
      url: redis.url,
      prefix: keyPrefix,
      retentionMs: 600_000,
      idleTtlMs: 600_000,
    });
    const plain = makeInteraction({ question: 'old, answered later' });
    const due = makeInteraction({ question: 'old, expires', deadline_at: new Date(Date.now() + 300).toISOString() });
    const parked = makeInteraction({ question: 'old, parked', mode: 'async', run_id: 'run-moved-1' });
    await one.create(plain);
    await one.create(due);
    const run: RunSpec = {
      run_id: 'run-moved-1',
      kind: 'tool',
      parent_run_id: null,
      state: null,
      resume: { handler: 'h' },
    };
    await oneRuns.park({ owner: 'alice', run, thread: null, records: [parked], unlisted: new Set() });
    const oldPage = await one.listPending({ limit: 1, cursor: null, groupId: null });
    await one.close();
    await oneRuns.close();

    // Restarted with ASKGATE_SHARDS=4: the store held asks and runs, so it was one shard (recorded as earlier).
    const { store, runs, connections } = await sharded(keyPrefix, 4);
    expect(await connections.command().smembers(connections.keys.earlierShardCounts)).toEqual(['1']);
    const fresh = [await ask(store), await ask(store), await ask(store)];
    // A cursor from one shard is shard 0's position: the list goes on after what the old page showed.
    const rest = await store.listPending({ limit: 50, cursor: oldPage.nextCursor, groupId: null });
    expect(rest.items.map((r) => r.id)).toEqual([due.id, parked.id, ...fresh.map((r) => r.id)]);
    const all = await store.listPending({ limit: 50, cursor: null, groupId: null });
    expect(all.items.map((r) => r.id)).toEqual([plain.id, due.id, parked.id, ...fresh.map((r) => r.id)]);

    expect(
      (
        await store.resolve(plain.id, {
          status: 'answered',
          result: answer('ok'),
          resolvedAt: new Date().toISOString(),
        })
      ).kind,
    ).toBe('resolved');
    expect((await store.get(plain.id))?.status).toBe('answered');

    await new Promise((r) => setTimeout(r, 400));
    expect(await store.popDue(Date.now(), 10)).toEqual([due.id]);

    // The run parked with one shard is found in shard 0, though a new run of its id would live in shard 2 of four.
    expect(shardOfName('run-moved-1', 4)).toBe(2);
    const claimed = await store.resolve(parked.id, {
      status: 'answered',
      result: answer(true),
      resolvedAt: new Date().toISOString(),
    });
    expect(claimed).toMatchObject({ kind: 'resolved', run: { runId: 'run-moved-1', verdict: 'ready' } });
    expect((await runs.get('run-moved-1'))?.status).toBe('ready');
    expect(await runs.complete('run-moved-1', 1)).toBe(1);
    expect((await runs.get('run-moved-1'))?.status).toBe('resumed');
  });

  it('refuses a start with fewer shards than the store records, naming ASKGATE_SHARDS, and raises a larger count', async () => {
    const keyPrefix = prefix();
    const env = {
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: keyPrefix,
      LOG_LEVEL: 'silent',
      ASKGATE_TOKENS: JSON.stringify({ 'shards-token-0123456789': { identity: 'a', scopes: ['read'] } }),
    };
    const four = await createGateway(loadConfig({ ...env, ASKGATE_SHARDS: '4' }), { workers: false });
    await four.close();
    const refused = await createGateway(loadConfig({ ...env, ASKGATE_SHARDS: '2' }), { workers: false }).then(
      async (g) => {
        await g.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).variable).toBe('ASKGATE_SHARDS');
    expect((refused as ConfigError).message).toMatch(/already spreads .* over 4 shards.*set ASKGATE_SHARDS=4/);
    const six = await createGateway(loadConfig({ ...env, ASKGATE_SHARDS: '6' }), { workers: false });
    await six.close();
    const connections = new RedisConnections({ url: redis.url, prefix: keyPrefix });
    closers.push(() => connections.close());
    expect(await connections.command().get(connections.keys.shardCount)).toBe('6');
    // The store was fresh when it started with 4: no earlier count of 1 (its runs need no look-up in shard 0).
    expect((await connections.command().smembers(connections.keys.earlierShardCounts)).sort()).toEqual(['4']);
  });
});
