import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pacingTransformer } from '../../channels/telegram/pacing.js';
import { SharedTelegramPacer } from '../../channels/telegram/shared-pacing.js';
import { RedisChannelState } from '../../src/store/redis/channel-state.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** The most departures in any `windowMs` (sorted times). */
function mostWithin(times: readonly number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe('Telegram pacing after the process stalls', () => {
  let redis: RedisServerHandle;
  let connections: RedisConnections;

  beforeAll(async () => {
    redis = await startRedisServer();
    connections = new RedisConnections({ url: redis.url, prefix: `{tgstall${Date.now()}}:` });
  });

  afterAll(async () => {
    await connections.close();
    await redis.stop();
  });

  it('gives up turns missed during a stall rather than sending them all at once: never over 30 in 900 ms', async () => {
    const pacer = new SharedTelegramPacer(new RedisChannelState(connections).pacing, 'stall-bot');
    const departures: number[] = [];
    type Send = (method: string, payload: unknown) => Promise<{ ok: true; result: true }>;
    const send: Send = async () => {
      departures.push(Date.now());
      return { ok: true, result: true };
    };
    const paced = pacingTransformer(pacer) as unknown as (
      prev: Send,
      method: string,
      payload: unknown,
    ) => Promise<unknown>;
    // 90 messages to 90 chats at the bot's 30/s; 1.2 s in, the event loop is blocked for 400 ms (a long GC, a busy
    // core): every turn that passed meanwhile wakes at once. Sent on those turns, 39 left within 900 ms.
    const sends = Array.from({ length: 90 }, (_, i) => paced(send, 'sendMessage', { chat_id: i }));
    setTimeout(() => {
      const until = Date.now() + 400;
      while (Date.now() < until);
    }, 1200);
    await Promise.all(sends);
    expect(departures).toHaveLength(90);
    expect(mostWithin(departures, 900)).toBeLessThanOrEqual(30);
  }, 20_000);
});
