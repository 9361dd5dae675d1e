import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoredInteraction } from '../../src/core/types.js';
import { Keys } from '../../src/store/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { keysUnder, makeInteraction, ticketHash } from './fixtures.js';

/**
 * The bucketed pending list and deadline index (src/store/redis/scripts/includes/bucketSize.lua): one `pending`
 * member per 64 sequence numbers, one `deadlines` member per bucket holding a deadline.
 */

let server: RedisServerHandle;
let raw: Redis;
const stores: RedisStore[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url);
});
afterAll(async () => {
  await raw.quit();
  await server.stop();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) {
    const keys = await keysUnder(raw, prefix);
    if (keys.length > 0) await raw.del(...keys);
  }
});

async function open(
  idleTtlSeconds = 60,
  prefix = `{b${randomBytes(6).toString('hex')}}:`,
): Promise<{ store: RedisStore; keys: Keys; prefix: string }> {
  const store = await RedisStore.connect({ url: server.url, prefix, idleTtlSeconds });
  stores.push(store);
  prefixes.push(prefix);
  return { store, keys: new Keys(prefix), prefix };
}

async function createMany(
  store: RedisStore,
  count: number,
  make: (i: number) => Partial<StoredInteraction> = () => ({}),
): Promise<StoredInteraction[]> {
  const records: StoredInteraction[] = [];
  // One after another: creation order is sequence order, which the paging test checks the list against.
  for (let i = 0; i < count; i++) {
    const record = makeInteraction({ question: `q${i}`, ...make(i) });
    await store.create(record);
    records.push(record);
  }
  return records;
}

const resolvedAt = () => new Date().toISOString();

describe('RedisStore buckets', () => {
  it('keeps one pending member per 64 asks and one index member per bucket, compactly', async () => {
    const { store, keys } = await open();
    // Debian's redis-server 7 defaults, which the small index zsets rely on.
    expect(await raw.config('GET', 'zset-max-listpack-*')).toEqual(
      expect.arrayContaining(['zset-max-listpack-entries', '128', 'zset-max-listpack-value', '64']),
    );
    await createMany(store, 200);
    // Sequence numbers 1..200 fall in buckets 0..3.
    expect(await raw.zcard(keys.pending)).toBe(4);
    expect(await raw.zcard(keys.deadlines)).toBe(4);
    expect(await raw.zrange(keys.deadlines, 0, -1)).toEqual(expect.arrayContaining(['0', '1', '2', '3']));
    // The index is small (a member per bucket): listpack-encoded.
    expect(await raw.object('ENCODING', keys.deadlines)).toBe('listpack');
    // Both indexes together: the ids (40 bytes in these tests) plus a few bytes each, not ~128 bytes per member
    // and index as one member per ask cost.
    const bytes = Number(await raw.memory('USAGE', keys.pending)) + Number(await raw.memory('USAGE', keys.deadlines));
    expect(bytes / 200).toBeLessThan(70);
  });

  it('pages across bucket boundaries while asks are created and resolved between pages', async () => {
    const { store } = await open();
    const records = await createMany(store, 300);
    const resolved = new Set<string>();
    const seen: string[] = [];
    const added: StoredInteraction[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const page = await store.listPending({ limit: 23, cursor, groupId: null });
      seen.push(...page.items.map((item) => item.id));
      for (const item of page.items) expect(resolved.has(item.id)).toBe(false);
      cursor = page.nextCursor;
      // Between pages: resolve one already shown and a few ahead (some whole runs, emptying buckets), add newcomers.
      round += 1;
      const ahead = records.slice(round * 23 + 5, round * 23 + 5 + (round % 3 === 0 ? 30 : 3));
      for (const record of [records[(round * 7) % 300]!, ...ahead]) {
        if (resolved.has(record.id)) continue;
        const outcome = await store.resolve(record.id, { status: 'cancelled', result: null, resolvedAt: resolvedAt() });
        if (outcome.kind === 'resolved') resolved.add(record.id);
      }
      if (round < 8) added.push(...(await createMany(store, 20)));
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    // Oldest first: the order of creation (every create here finished before the next began).
    const order = new Map([...records, ...added].map((record, i) => [record.id, i]));
    const positions = seen.map((id) => order.get(id)!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // Every ask pending throughout was shown; no ask resolved before its page was.
    for (const record of [...records, ...added]) {
      if (!resolved.has(record.id)) expect(seen).toContain(record.id);
    }
  });

  it('pops due ids across many buckets, each to exactly one of many concurrent callers, earliest first', async () => {
    const prefix = `{b${randomBytes(6).toString('hex')}}:`;
    const { store } = await open(60, prefix);
    const others = await Promise.all(Array.from({ length: 3 }, () => open(60, prefix)));
    const now = Date.now();
    // Deadlines out of sequence order, spread over 10 buckets, some not yet due.
    const deadlines = Array.from({ length: 640 }, (_, i) => now - 50_000 + ((i * 7919) % 640) * 100);
    const records = await createMany(store, 640, (i) => ({ deadline_at: new Date(deadlines[i]!).toISOString() }));
    const due = new Set(records.filter((_, i) => deadlines[i]! <= now).map((r) => r.id));
    expect(due.size).toBeGreaterThan(400);
    const callers = [store, ...others.map((o) => o.store)];
    const popped: string[][] = callers.map(() => []);
    await Promise.all(
      callers.map(async (caller, c) => {
        for (;;) {
          const batch = await caller.popDue(now, 17);
          if (batch.length === 0) return;
          popped[c]!.push(...batch);
        }
      }),
    );
    const all = popped.flat();
    expect(all.length).toBe(due.size);
    expect(new Set(all)).toEqual(due);
    // Each caller's ids come earliest deadline first.
    const deadlineOf = new Map(records.map((r, i) => [r.id, deadlines[i]!]));
    for (const list of popped) {
      const ds = list.map((id) => deadlineOf.get(id)!);
      expect(ds).toEqual([...ds].sort((a, b) => a - b));
    }
    // The rest are due later, in order.
    const rest = await store.popDue(now + 100_000, 1000);
    expect(rest.map((id) => deadlineOf.get(id)!)).toEqual(
      [...rest.map((id) => deadlineOf.get(id)!)].sort((a, b) => a - b),
    );
    expect(rest.length).toBe(640 - due.size);
    // Popped asks stay pending and listed until resolved.
    const page = await store.listPending({ limit: 1000, cursor: null, groupId: null });
    expect(page.items.length).toBe(640);
  });

  it('answers oldest first without re-scoring the deadline index; pop-due repairs the early score when it comes due', async () => {
    const { store, keys } = await open();
    const now = Date.now();
    // Four asks in one bucket, deadlines in sequence order (as asks with one timeout are).
    const deadlines = [now + 10_000, now + 20_000, now + 30_000, now + 40_000];
    const records = await createMany(store, 4, (i) => ({ deadline_at: new Date(deadlines[i]!).toISOString() }));
    const bucket = (await raw.zrange(keys.deadlines, 0, -1))[0] as string;
    expect(Number(await raw.zscore(keys.deadlines, bucket))).toBe(deadlines[0]);

    // The two oldest are resolved: the index keeps the first one's deadline (early, never late).
    for (const r of records.slice(0, 2))
      await store.resolve(r.id, { status: 'cancelled', result: null, resolvedAt: resolvedAt() });
    expect(Number(await raw.zscore(keys.deadlines, bucket))).toBe(deadlines[0]);

    // Past that early score, nothing is due yet: pop-due pops nothing and moves the score to the earliest left.
    expect(await store.popDue(deadlines[1]! - 1, 100)).toEqual([]);
    expect(Number(await raw.zscore(keys.deadlines, bucket))).toBe(deadlines[2]);
    // The remaining asks come due at their own deadlines, in order.
    expect(await store.popDue(deadlines[2]!, 100)).toEqual([records[2]!.id]);
    expect(await store.popDue(deadlines[3]!, 100)).toEqual([records[3]!.id]);
  });

  it('leaves nothing behind: the keyspace is back to its baseline once every ask resolves', async () => {
    const { store, keys, prefix } = await open(1);
    // The asks are written with a long idle TTL, so that a past deadline cannot prune one before it is resolved
    // however slow the writes; they are resolved through a store whose idle TTL is 1 s, so the keyspace empties soon.
    const { store: writer } = await open(60, prefix);
    // Baseline: a store that has asked and resolved once keeps only its sequence counter.
    const first = makeInteraction();
    await store.create(first);
    await store.resolve(first.id, { status: 'cancelled', result: null, resolvedAt: resolvedAt() });
    await expect.poll(() => keysUnder(raw, prefix), { timeout: 20_000, interval: 200 }).toEqual([keys.seq]);
    const baseline = [keys.seq];

    const now = Date.now();
    const records = await createMany(writer, 400, (i) => ({
      group_id: `grp-${i % 3}`,
      ticket_hash: i % 2 === 0 ? ticketHash() : null,
      deadline_at: new Date(now + (i % 5 === 0 ? -1000 : 60_000)).toISOString(),
    }));
    expect(await raw.zcard(keys.pending)).toBeGreaterThan(5);
    // Some deadlines popped first (zeroed in their buckets), the rest resolved directly, in a shuffled order.
    const due = await store.popDue(now, 1000);
    expect(due.length).toBe(80);
    const order = [...records].sort(() => Math.random() - 0.5);
    await Promise.all(
      order.map((r) => store.resolve(r.id, { status: 'expired', result: null, resolvedAt: resolvedAt() })),
    );
    expect(
      await raw.exists(keys.pending, keys.deadlines, keys.group('grp-0'), keys.group('grp-1'), keys.group('grp-2')),
    ).toBe(0);
    await expect.poll(() => keysUnder(raw, prefix), { timeout: 20_000, interval: 200 }).toEqual(baseline);
  });
});
