import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The public doors that need no token — /healthz, /readyz, /metrics — reveal nothing secret: not a bearer token,
 * a webhook or channel secret, a bot token, a callback ticket, nor the Redis URL and its password; not after
 * traffic that put each of them to use, and not when the store is down.
 */

const TOKEN = 'health-doors-token-0123456789abcdef';
const WEBHOOK_SECRET = 'whsec_aGVhbHRoLWRvb3JzLXdlYmhvb2stc2VjcmV0';
const BOT_TOKEN = '123456:HEALTH-bot-token-0123456789';
const TG_SECRET = 'health-tg-webhook-secret_0123456789';
const REDIS_PASSWORD = 'health-redis-password-0123456789';
let redis: RedisServerHandle;
let tg: FakeTelegram;
let gw: TestGateway;
let redisUrl: string;
const secrets: string[] = [TOKEN, WEBHOOK_SECRET, BOT_TOKEN, TG_SECRET, REDIS_PASSWORD];

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  const admin = new Redis(redis.url);
  await admin.config('SET', 'requirepass', REDIS_PASSWORD);
  admin.disconnect();
  redisUrl = `redis://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}`;
  secrets.push(redisUrl);
  tg = await startFakeTelegram();
  gw = await startTestGateway(
    {
      REDIS_URL: redisUrl,
      ASKGATE_TOKENS: JSON.stringify({
        [TOKEN]: { identity: 'ops', scopes: ['read', 'write', 'answer'], webhook_secret: WEBHOOK_SECRET },
      }),
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
      TELEGRAM_API_ROOT: tg.apiRoot,
    },
    // No queue workers: their blocking connections would hold the close up after the store's restart below.
    { workers: false },
  );
  // Traffic that uses every secret: an ask with a callback ticket answered through it, a channel ask, a refusal.
  const http = api(gw.url, TOKEN);
  const linked = await http.post('/api/interactions', { question: 'Ship?', answer_format: 'confirm', link: true });
  const ticketUrl = linked.json['callback_url'] as string;
  secrets.push(ticketUrl.split('/').pop() as string);
  await fetch(ticketUrl.replace('http://127.0.0.1:9', gw.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answer: true }),
  });
  await http.post('/api/interactions', {
    question: 'Chat?',
    answer_format: 'confirm',
    channel: 'telegram',
    recipient: '7',
  });
  await api(gw.url, 'not-a-token-at-all-0123456789').get('/api/interactions');
});
afterAll(async () => {
  await gw?.close();
  await tg?.close();
  await redis?.stop();
});

async function read(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}${path}`);
  return { status: res.status, text: await res.text() };
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of secrets) expect(text.includes(secret), `${where} shows a secret`).toBe(false);
  expect(text, where).not.toMatch(/whsec_|Bearer |redis:\/\//);
}

describe('the public health doors', () => {
  it('/healthz, /readyz and /metrics show no token, secret, ticket or store URL', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const { status, text } = await read(path);
      expect(status, path).toBe(200);
      expectNoSecret(text, path);
    }
    // The traffic above is counted: the metrics are real, not empty.
    expect((await read('/metrics')).text).toMatch(/askgate_asks_total\{[^}]*\} [1-9]/);
  });

  it('/readyz with the store down says so without naming its URL or password', async () => {
    await redis.stop();
    const { status, text } = await read('/readyz');
    expect(status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ error: 'store_unavailable', store: 'redis' });
    expectNoSecret(text, '/readyz (store down)');
    expectNoSecret((await read('/metrics')).text, '/metrics (store down)');
    // Back up (and guarded by the same password) so the gateway closes cleanly.
    await redis.restart();
    const admin = new Redis(redis.url);
    await admin.config('SET', 'requirepass', REDIS_PASSWORD);
    admin.disconnect();
    await expect.poll(async () => (await read('/readyz')).status, { timeout: 10_000 }).toBe(200);
  });
});
