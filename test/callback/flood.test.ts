import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../helpers/gateway.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** Flood control of the callback door: one fixed-window budget per client address, shared through Redis. */

const WINDOW = 30;
const LIMIT = 5;
const unknownTicket = `/api/interactions/callback/${'D'.repeat(43)}`;

/** Waits out the tail of a window so a test's burst lands inside one window. */
async function freshWindow(windowSeconds: number): Promise<void> {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < 4000) await new Promise((r) => setTimeout(r, left + 50));
}

describe('flood control across two server processes on one Redis', () => {
  let redis: RedisServerHandle;
  const procs: GatewayProcess[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    const env = {
      REDIS_URL: redis.url,
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      INTERACTIONS_CALLBACK_RATE: `${LIMIT}/${WINDOW}`,
      ASKGATE_REDIS_PREFIX: `{flood-${Date.now()}}:`,
    };
    procs.push(await spawnGateway('serve', env), await spawnGateway('serve', env));
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await redis?.stop().catch(() => undefined);
  });

  it('holds the budget in total and answers 429 with the seconds left in the window', async () => {
    await freshWindow(WINDOW);
    const statuses: number[] = [];
    /** Each 429's Retry-After, with the seconds left in the window just before and just after its request. */
    const retryAfter: Array<{ r: number; leftBefore: number; leftAfter: number }> = [];
    const secondsLeft = (t: number): number => (WINDOW * 1000 - (t % (WINDOW * 1000))) / 1000;
    for (let i = 0; i < 8; i++) {
      const sentAt = Date.now();
      const res = await fetch(`${procs[i % 2]!.url}${unknownTicket}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const answeredAt = Date.now();
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter.push({
          r: Number(res.headers.get('retry-after')),
          leftBefore: secondsLeft(sentAt),
          leftAfter: secondsLeft(answeredAt),
        });
        expect((await res.json()) as unknown).toMatchObject({ error: 'rate_limited' });
      } else {
        await res.text();
      }
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429]);
    // The seconds left when the gateway decided lie between those just before and just after the request, however
    // slow the host; rounded up to whole seconds.
    expect(retryAfter).toHaveLength(3);
    for (const { r, leftBefore, leftAfter } of retryAfter) {
      expect(Number.isInteger(r)).toBe(true);
      expect(r).toBeGreaterThanOrEqual(Math.floor(leftAfter));
      expect(r).toBeLessThanOrEqual(Math.ceil(leftBefore));
    }
    // GETs of the page count against the same budget.
    expect((await fetch(`${procs[1]!.url}${unknownTicket}`)).status).toBe(429);
  });
});

describe('the client address', () => {
  it('ignores X-Forwarded-For unless a trusted proxy is configured', async () => {
    await freshWindow(60);
    const plain = await startTestGateway({ INTERACTIONS_CALLBACK_RATE: '2/60' });
    const proxied = await startTestGateway({ INTERACTIONS_CALLBACK_RATE: '2/60', ASKGATE_TRUST_PROXY: 'loopback' });
    try {
      const hit = (url: string, xff: string) =>
        fetch(`${url}${unknownTicket}`, { headers: { 'x-forwarded-for': xff } }).then((r) => r.status);
      // Forged addresses do not buy a client new buckets...
      expect([
        await hit(plain.url, '10.0.0.1'),
        await hit(plain.url, '10.0.0.2'),
        await hit(plain.url, '10.0.0.3'),
      ]).toEqual([404, 404, 429]);
      // ...but behind the configured proxy each forwarded client has its own.
      expect([
        await hit(proxied.url, '10.0.0.1'),
        await hit(proxied.url, '10.0.0.1'),
        await hit(proxied.url, '10.0.0.1'),
      ]).toEqual([404, 404, 429]);
      expect(await hit(proxied.url, '10.0.0.2')).toBe(404);
    } finally {
      await plain.close();
      await proxied.close();
    }
  });
});
