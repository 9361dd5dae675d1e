import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * Readiness follows the store (docs/doors.md: `/readyz` is 503 while the store does not answer), and the expiry and
 * cancel counters count what happened, by format.
 */

let redis: RedisServerHandle;
let gw: TestGateway;
let http: Api;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  gw = await startTestGateway({ REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: '{health}:' });
  http = api(gw.url, gw.token);
});

afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

/** The value of one sample of `/metrics`, 0 when the series does not exist yet. */
async function sample(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('/readyz follows the store', () => {
  it('is 503 naming the store while redis-server is down, and ready again once it is back', async () => {
    expect((await http.get('/readyz')).json).toEqual({ status: 'ready', store: 'redis' });
    await redis.stop();
    try {
      const down = await http.get('/readyz');
      expect(down.status).toBe(503);
      expect(down.json).toMatchObject({ error: 'store_unavailable', store: 'redis' });
      expect(down.json['message']).toMatch(/redis store/);
      // Liveness is not readiness: the process itself is fine.
      expect((await http.get('/healthz')).status).toBe(200);
    } finally {
      await redis.restart();
    }
    const deadline = Date.now() + 15_000;
    while ((await http.get('/readyz')).status !== 200) {
      if (Date.now() > deadline) throw new Error('/readyz never came back after redis-server restarted');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

describe('the expiry and cancel metrics', () => {
  it('counts a sync ask that reached its deadline as an expiry of its format, and nothing as a cancel', async () => {
    const expiriesBefore = await sample('askgate_expiries_total', 'format="text"');
    const cancelsBefore = await sample('askgate_cancels_total', 'format="text"');
    const res = await http.post('/api/interactions', { question: 'Anyone?', answer_format: 'text', timeout: 0.5 });
    const waited = await http.get(`/api/interactions/${res.json['id'] as string}/result?wait=10`);
    expect(waited.json['status']).toBe('expired');
    expect(await sample('askgate_expiries_total', 'format="text"')).toBe(expiriesBefore + 1);
    expect(await sample('askgate_cancels_total', 'format="text"')).toBe(cancelsBefore);
  });

  it('counts a withdrawn ask as a cancel of its format, once however often it is withdrawn, and nothing as an expiry', async () => {
    const expiriesBefore = await sample('askgate_expiries_total', 'format="confirm"');
    const cancelsBefore = await sample('askgate_cancels_total', 'format="confirm"');
    const res = await http.post('/api/interactions', {
      question: 'Withdraw me?',
      answer_format: 'confirm',
      timeout: 3600,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json['id'] as string;
    expect((await http.delete(`/api/interactions/${id}`)).status).toBeLessThan(300);
    await http.delete(`/api/interactions/${id}`);
    expect((await http.get(`/api/interactions/${id}`)).json['status']).toBe('cancelled');
    expect(await sample('askgate_cancels_total', 'format="confirm"')).toBe(cancelsBefore + 1);
    expect(await sample('askgate_expiries_total', 'format="confirm"')).toBe(expiriesBefore);
  });
});
