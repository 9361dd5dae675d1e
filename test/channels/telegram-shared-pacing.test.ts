import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botIdOf } from '../../channels/telegram/shared-pacing.js';
import { Keys } from '../../src/store/keys.js';
import { startFakeTelegram, type FakeCall, type FakeTelegram } from '../fakes/telegram-server.js';
import { postUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat } from './telegram-harness.js';

/**
 * Two gateways sending as one bot through one Redis, against a fake Telegram that answers 429 as Telegram does when
 * a chat gets more than about a message a second or the bot more than about 30 a second. Every assertion is on the
 * fake's record of what reached it: its timestamps and its 429s.
 */

const PREFIX = `{tgpace${Date.now()}}:`;
const keys = new Keys(PREFIX);
const BOT = botIdOf(BOT_TOKEN);

let redis: RedisServerHandle;
let peek: Redis;
let fake: FakeTelegram;
let gateways: TestGateway[];
let a: Api;
let b: Api;

beforeAll(async () => {
  redis = await startRedisServer();
  peek = new Redis(redis.url);
  // 1 message/s per chat and 30/s for the bot, with 100 ms of slack for loopback jitter (FakeLimits).
  fake = await startFakeTelegram({ limits: { perChatGapMs: 900, perWindow: 30, windowMs: 900 } });
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_API_ROOT: fake.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
  };
  gateways = [await startTestGateway(env), await startTestGateway(env)];
  a = api(gateways[0]!.url, gateways[0]!.token);
  b = api(gateways[1]!.url, gateways[1]!.token);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  peek.disconnect();
  await fake.close();
  await redis.stop();
});

const ask = (http: Api, recipient: string, question = 'Go?') =>
  http.post('/api/interactions', { question, answer_format: 'confirm', channel: 'telegram', recipient });

/** Polls until `probe` yields a value (the fake's record, a Redis key): no fixed sleeps. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sendsTo = (calls: FakeCall[], chat: string): number[] =>
  calls
    .filter((c) => c.method === 'sendMessage' && c.payload['chat_id'] === chat && c.status === 200)
    .map((c) => c.at)
    .sort((x, y) => x - y);

const tooMany = (calls: FakeCall[]): FakeCall[] => calls.filter((c) => c.status === 429);

describe('Telegram pacing shared over Redis by two gateways', () => {
  it('keeps each chat to about one message a second when both gateways send to it at once', async () => {
    const from = fake.calls.length;
    const chats = [freshChat(), freshChat(), freshChat()];
    const asks = chats.flatMap((chat) =>
      [a, b, a, b].map((http, i) => ask(http, chat, `Chat ${chat}, question ${i}?`)),
    );
    for (const res of await Promise.all(asks)) expect(res.status, JSON.stringify(res.json)).toBe(201);
    const calls = fake.calls.slice(from);
    expect(tooMany(calls)).toEqual([]);
    for (const chat of chats) {
      const at = sendsTo(calls, chat);
      expect(at).toHaveLength(4);
      for (let i = 1; i < at.length; i++) expect((at[i] as number) - (at[i - 1] as number)).toBeGreaterThanOrEqual(900);
    }
  });

  it('keeps the bot to 30 messages a second over both gateways together', async () => {
    const from = fake.calls.length;
    const n = 80;
    const asks = Array.from({ length: n }, (_, i) => ask(i % 2 === 0 ? a : b, freshChat(), `Broadcast ${i}?`));
    for (const res of await Promise.all(asks)) expect(res.status, JSON.stringify(res.json)).toBe(201);
    const calls = fake.calls.slice(from);
    expect(tooMany(calls)).toEqual([]);
    const at = calls
      .filter((c) => c.method === 'sendMessage')
      .map((c) => c.at)
      .sort((x, y) => x - y);
    expect(at).toHaveLength(n);
    // One slot every 1000/30 ms for the whole bot: 80 sends span at least 79 slots (less a little jitter). Each
    // gateway pacing only itself would have sent them at 60/s.
    expect((at[n - 1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(((n - 1) * 1000) / 30 - 100);
  });

  it('makes the other gateway wait out a 429 for a chat too', async () => {
    const chat = freshChat();
    const from = fake.calls.length;
    fake.tooManyRequests('sendMessage', 2);
    const first = ask(a, chat, 'First?');
    const refused = await until('the injected 429', () =>
      fake.calls.slice(from).find((c) => c.status === 429 && c.payload['chat_id'] === chat),
    );
    // Gateway A pushed the chat back in Redis (its 429 handling), before gateway B asks.
    await until('the push-back', async () =>
      Number(await peek.get(keys.telegramChat(BOT, chat))) >= refused.at + 1500 ? true : undefined,
    );
    const second = ask(b, chat, 'Second?');
    expect((await first).status).toBe(201);
    expect((await second).status).toBe(201);
    const calls = fake.calls.slice(from);
    expect(tooMany(calls)).toEqual([refused]);
    const at = sendsTo(calls, chat);
    expect(at).toHaveLength(2);
    for (const t of at) expect(t - refused.at).toBeGreaterThanOrEqual(1990);
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(900);
  });

  it('makes both gateways wait out a 429 for the whole bot', async () => {
    const created = await ask(a, freshChat(), 'Tap me?');
    expect(created.status).toBe(201);
    const delivery = (await gateways[0]!.gateway.store.get(created.json['id'] as string))?.delivery;
    const message = fake.message(delivery?.['chat_id'] ?? '', delivery?.['message_id'] ?? '');
    if (message === undefined) throw new Error('the question was not delivered');
    const from = fake.calls.length;
    // A 429 on a call addressed to no chat (the tap's acknowledgement) is read as the bot's.
    fake.tooManyRequests('answerCallbackQuery', 2);
    const tap = postUpdate(gateways[0]!.url, WEBHOOK_SECRET, tapUpdate(message, { label: 'Yes' }));
    const refused = await until('the injected 429', () => fake.calls.slice(from).find((c) => c.status === 429));
    await until('the bot-wide push-back', async () =>
      Number(await peek.get(keys.telegramPause(BOT))) >= refused.at + 1500 ? true : undefined,
    );
    const elsewhere = freshChat();
    expect((await ask(b, elsewhere, 'Meanwhile?')).status).toBe(201);
    expect(await tap).toBe(200);
    const calls = fake.calls.slice(from);
    expect(tooMany(calls)).toEqual([refused]);
    const [sent] = sendsTo(calls, elsewhere);
    expect((sent as number) - refused.at).toBeGreaterThanOrEqual(1990);
    const acked = calls.filter((c) => c.method === 'answerCallbackQuery' && c.status === 200);
    expect(acked).toHaveLength(1);
    expect((acked[0] as FakeCall).at - refused.at).toBeGreaterThanOrEqual(1990);
  });
});
