import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../src/store/keys.js';
import { MemoryChannelState } from '../../src/store/memory-channel-state.js';
import { RedisChannelState } from '../../src/store/redis/channel-state.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { runChannelStateContract } from './channel-state-contract.js';

runChannelStateContract('memory', async () => {
  const state = new MemoryChannelState();
  return { a: state, b: state, close: async () => undefined };
});

let redis: RedisServerHandle;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

runChannelStateContract('Redis, two processes', async () => {
  const prefix = `{chstate${Date.now()}}:`;
  const processes = [
    new RedisConnections({ url: redis.url, prefix }),
    new RedisConnections({ url: redis.url, prefix }),
  ] as const;
  return {
    a: new RedisChannelState(processes[0]),
    b: new RedisChannelState(processes[1]),
    close: async () => {
      await Promise.all(processes.map((p) => p.close()));
    },
  };
});

describe('MemoryChannelState: lifetimes by its clock', () => {
  let now = 1_000_000;
  const state = new MemoryChannelState(() => now);

  it('forgets a dedupe claim, a reference and a log once their time has passed', async () => {
    expect(await state.dedupe.firstSeen('e1', 1000)).toBe(true);
    await state.conversations.remember('c', 'r', 'ref', 1000);
    await state.chatLogs.append({ channel: 'c', conversation: 'r' }, 'x', { keep: 5, retentionMs: 1000 });
    now += 999;
    expect(await state.dedupe.firstSeen('e1', 1000)).toBe(false);
    expect(await state.conversations.recall('c', 'r')).toBe('ref');
    expect(await state.chatLogs.read({ channel: 'c', conversation: 'r' })).toEqual(['x']);
    now += 1;
    expect(await state.dedupe.firstSeen('e1', 1000)).toBe(true);
    expect(await state.conversations.recall('c', 'r')).toBeNull();
    expect(await state.chatLogs.read({ channel: 'c', conversation: 'r' })).toEqual([]);
  });

  it('lays slots out as the pacing script does: slot k at floor(k * 1000 / rate), from now', async () => {
    now = 2_000_000;
    const account = { platform: 'p', account: 'a' };
    const slots = [];
    for (let i = 0; i < 4; i++) slots.push(await state.pacing.reserve(account, null, 3, 0));
    // 2 000 000 ms at 3/s is slot 6000; then 6001, 6002, 6003: 333, 666, 1000 ms later.
    expect(slots).toEqual([
      { slotAt: 2_000_000, wait: 0 },
      { slotAt: 2_000_333, wait: 333 },
      { slotAt: 2_000_666, wait: 666 },
      { slotAt: 2_001_000, wait: 1000 },
    ]);
    expect(await state.pacing.pushBack(account, 'chat', 500)).toBe(500);
    expect(await state.pacing.reserve(account, 'chat', 1000, 250)).toEqual({ slotAt: 2_000_500, wait: 500 });
    // The chat's next free time is its slot + 250 ms.
    expect(await state.pacing.reserve(account, 'chat', 1000, 250)).toEqual({ slotAt: 2_000_750, wait: 750 });
    now += 2_000;
    expect(await state.pacing.reserve(account, 'chat', 1000, 250)).toEqual({ slotAt: 2_002_000, wait: 0 });
  });
});

describe('RedisChannelState: what it leaves in Redis', () => {
  it('writes under the deployment prefix with lifetimes, and publishes one message per append', async () => {
    const prefix = `{chkeys${Date.now()}}:`;
    const connections = new RedisConnections({ url: redis.url, prefix });
    const peek = new Redis(redis.url);
    try {
      const state = new RedisChannelState(connections);
      const keys = new Keys(prefix);
      await state.chatLogs.append({ channel: 'web', conversation: 'p1' }, '{"a":1}', { keep: 3, retentionMs: 60_000 });
      expect(await peek.lrange(keys.chatLog('web', 'p1'), 0, -1)).toEqual(['{"a":1}']);
      const ttl = await peek.pttl(keys.chatLog('web', 'p1'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await state.conversations.remember('web', 'p1', 'ref', 30_000);
      expect(await peek.pttl(keys.conversationRef('web', 'p1'))).toBeLessThanOrEqual(30_000);
      expect(await state.dedupe.firstSeen('telegram:1', 3_600_000)).toBe(true);
      expect(await peek.get(keys.seen('channel:telegram:1'))).toBe('1');
      await state.pacing.pushBack({ platform: 'telegram', account: '42' }, null, 5_000);
      expect(await peek.pttl(keys.pacePause('telegram', '42'))).toBeLessThanOrEqual(5_000);
    } finally {
      peek.disconnect();
      await connections.close();
    }
  });
});

describe('RedisChannelState: round trips of a paced send', () => {
  it('costs one script call to reserve a turn, one to depart, one to settle, one to push back', async () => {
    const connections = new RedisConnections({ url: redis.url, prefix: `{chtrips${Date.now()}}:` });
    const probe = new Redis(redis.url);
    /** Script calls (EVAL, EVALSHA) since the reset: each is one round trip of the state's. */
    const clientCalls = async (): Promise<number> => {
      let total = 0;
      for (const line of (await probe.info('commandstats')).split('\n')) {
        const m = /^cmdstat_(?:eval|evalsha):calls=(\d+)/.exec(line.trim());
        if (m !== null) total += Number(m[1]);
      }
      return total;
    };
    try {
      const { pacing } = new RedisChannelState(connections);
      const account = { platform: 'slack', account: 'trips' };
      await probe.config('RESETSTAT');
      await pacing.reserve(account, 'C1', 1, 1000);
      // One script call (EVAL the first time on a connection, EVALSHA after): one round trip.
      expect(await clientCalls()).toBe(1);
      await pacing.depart(account, 'C1', 1000, false);
      await pacing.depart(account, 'C1', 1000, true);
      await pacing.pushBack(account, null, 1000);
      expect(await clientCalls()).toBe(4);
    } finally {
      probe.disconnect();
      await connections.close();
    }
  });
});
