import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoalescedWrites, coalesceWrites } from '../../src/store/redis/write-coalescing.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** The read events Redis has processed so far (INFO stats), as seen from a separate connection. */
async function readsProcessed(observer: Redis): Promise<number> {
  const m = /total_reads_processed:(\d+)/.exec(await observer.info('stats'));
  if (m === null) throw new Error('INFO stats has no total_reads_processed');
  return Number(m[1]);
}

describe('write coalescing of the command connection', () => {
  let server: RedisServerHandle;
  let observer: Redis;

  beforeAll(async () => {
    server = await startRedisServer({ own: true });
    observer = new Redis(server.url);
  });

  afterAll(async () => {
    observer.disconnect();
    await server.stop();
  });

  /** Reads Redis processed for 200 INCRs sent in one turn, and their replies in order. */
  async function burst(client: Redis, key: string): Promise<{ reads: number; replies: number[] }> {
    await client.ping();
    const before = await readsProcessed(observer);
    const replies = await Promise.all(Array.from({ length: 200 }, () => client.incr(key)));
    // The observer's own INFO counts as one read too.
    return { reads: (await readsProcessed(observer)) - before - 1, replies };
  }

  it("sends one turn's commands in one write, replies in order", async () => {
    const coalesced = new Redis(server.url);
    const plain = new Redis(server.url);
    coalesceWrites(coalesced);
    try {
      const together = await burst(coalesced, 'coalesced');
      const apart = await burst(plain, 'plain');
      expect(together.replies).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(apart.replies).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      // One write of ~7 KB: Redis reads it in one or two events; uncoalesced, the 200 writes take many more.
      expect(together.reads).toBeLessThanOrEqual(2);
      expect(apart.reads).toBeGreaterThan(together.reads);
    } finally {
      coalesced.disconnect();
      plain.disconnect();
    }
  });

  /** A coalesced connection of its own, connected, for one test. */
  async function withCoalesced(test: (client: Redis, writes: CoalescedWrites) => Promise<void>): Promise<void> {
    const client = new Redis(server.url);
    const writes = coalesceWrites(client);
    try {
      await client.ping();
      await test(client, writes);
    } finally {
      client.disconnect();
    }
  }

  it('sends the next command at once when asked, with what the turn queued before it', async () => {
    await withCoalesced(async (client, writes) => {
      const socket = client.stream;
      const first = client.incr('at-once');
      // Corked: the first command waits in the socket's buffer for the end of the turn.
      expect(socket.writableLength).toBeGreaterThan(0);
      let after = 'not yet';
      writes.sendNextAtOnce(() => {
        after = socket.writableLength === 0 ? 'after the write' : 'before the write';
      });
      const second = client.incr('at-once');
      // Both left with the second, while this turn still runs.
      expect(socket.writableCorked).toBe(0);
      expect(socket.writableLength).toBe(0);
      expect(after).toBe('not yet');
      await Promise.resolve();
      expect(after).toBe('after the write');
      // The one after it waits for the end of the turn again.
      const third = client.incr('at-once');
      expect(socket.writableLength).toBeGreaterThan(0);
      expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    });
  });

  it('sends as many next commands at once as were asked for, each then told in turn', async () => {
    await withCoalesced(async (client, writes) => {
      const socket = client.stream;
      const told: string[] = [];
      writes.sendNextAtOnce(() => told.push('first'));
      writes.sendNextAtOnce(() => told.push('second'));
      const first = client.incr('twice');
      expect(socket.writableLength).toBe(0);
      const second = client.incr('twice');
      expect(socket.writableLength).toBe(0);
      const third = client.incr('twice');
      expect(socket.writableLength).toBeGreaterThan(0);
      await Promise.resolve();
      expect(told).toEqual(['first', 'second']);
      expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    });
  });

  it('queues commands sent before the connection is ready, and writes again after a reconnect', async () => {
    const client = new Redis(server.url, { lazyConnect: true });
    coalesceWrites(client);
    try {
      // Not connected yet: the commands wait in the offline queue, uncorked, and are sent once it connects.
      const early = await Promise.all([client.set('early', '1'), client.get('early')]);
      expect(early).toEqual(['OK', '1']);
      await observer.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await expect(client.incr('after-kill')).resolves.toBe(1);
      expect(await Promise.all([client.incr('after-kill'), client.incr('after-kill')])).toEqual([2, 3]);
    } finally {
      client.disconnect();
    }
  });
});
