import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../src/core/event-hub.js';
import type { InteractionEvent } from '../../src/core/types.js';
import { EventSubscription } from '../../src/store/redis/event-subscription.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { eventually, makeInteraction, sleep } from './fixtures.js';

/** How many connections are subscribed to `channel` right now (PUBSUB NUMSUB). */
async function subscribers(observer: Redis, channel: string): Promise<number> {
  const reply = (await observer.call('PUBSUB', 'NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

describe('the events channel is subscribed only while someone listens', () => {
  let server: RedisServerHandle;
  let observer: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    observer = new Redis(server.url);
  });

  afterAll(async () => {
    observer.disconnect();
    await server.stop();
  });

  it('a store without listeners receives no event; its first listener subscribes and hears every event', async () => {
    const prefix = `{e${randomBytes(6).toString('hex')}}:`;
    const writer = await RedisStore.connect({ url: server.url, prefix, idleTtlSeconds: 60 });
    const reader = await RedisStore.connect({ url: server.url, prefix, idleTtlSeconds: 60 });
    try {
      const channel = `${prefix}events`;
      expect(await subscribers(observer, channel)).toBe(0);
      await writer.create(makeInteraction());
      const seen: InteractionEvent[] = [];
      reader.subscribe((event) => seen.push(event));
      await reader.eventsReady();
      expect(await subscribers(observer, channel)).toBe(1);
      const record = makeInteraction();
      await writer.create(record);
      await eventually(() =>
        expect(seen.map((e) => [e.type, e.record.id])).toEqual([['interaction.created', record.id]]),
      );
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('unsubscribes after the last release and a linger; a hold during the linger keeps it', async () => {
    const channel = `linger-${randomBytes(4).toString('hex')}`;
    const connection = new Redis(server.url);
    const subscription = new EventSubscription(connection, channel, 200);
    try {
      subscription.hold();
      await subscription.ready();
      expect(await subscribers(observer, channel)).toBe(1);
      subscription.release();
      await sleep(100);
      subscription.hold(); // within the linger: nothing to subscribe again
      await sleep(250);
      expect(await subscribers(observer, channel)).toBe(1);
      subscription.release();
      await eventually(async () => expect(await subscribers(observer, channel)).toBe(0));
      subscription.hold();
      await subscription.ready();
      expect(await subscribers(observer, channel)).toBe(1);
    } finally {
      subscription.close();
      connection.disconnect();
    }
  });

  it("the hub holds the store's subscription while it has a listener or a waiter, and only then", async () => {
    const prefix = `{h${randomBytes(6).toString('hex')}}:`;
    const store = await RedisStore.connect({ url: server.url, prefix, idleTtlSeconds: 60, eventsLingerMs: 100 });
    const hub = new EventHub(store);
    const channel = `${prefix}events`;
    try {
      await hub.ready();
      expect(await subscribers(observer, channel)).toBe(0);
      const unlisten = hub.listen(() => undefined);
      const unwatch = hub.watch('some-id', () => undefined);
      await hub.ready();
      expect(await subscribers(observer, channel)).toBe(1);
      unlisten();
      await sleep(300); // past the linger: the waiter still holds it
      expect(await subscribers(observer, channel)).toBe(1);
      unwatch();
      await eventually(async () => expect(await subscribers(observer, channel)).toBe(0));
    } finally {
      hub.close();
      await store.close();
    }
  });
});
