import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedTelegramPacer, botIdOf } from '../../channels/telegram/shared-pacing.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { RedisChannelState } from '../../src/store/redis/channel-state.js';
import { Keys } from '../../src/store/keys.js';
import { startFakeTelegram, type FakeCall, type FakeTelegram } from '../fakes/telegram-server.js';
import { postUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat } from './telegram-harness.js';

/**
 * Telegram's budget shared over one Redis. Two parts:
 * - the pacer's decisions, from two pacers on one Redis as two processes hold them: the slots it reserved (epoch ms
 *   by Redis' clock). These are what the budget guarantees, and they do not depend on how busy the host is;
 * - two gateways sending as one bot against a fake Telegram that answers 429 as Telegram does when a chat or the bot
 *   goes over its rate. What reached the fake is judged by its 429 count and by lower bounds on arrival (a loaded
 *   host can only make a call later, never earlier); spacing between arrivals is the host's, not askgate's, so it
 *   is judged on the decisions instead. The fake allows what Telegram tolerates (a burst of jitter), and still
 *   refuses a pacer that does not pace a chat, or paces each gateway on its own (two budgets of 30/s).
 */

const PREFIX = `{tgpace${Date.now()}}:`;
const keys = new Keys(PREFIX);
const BOT = botIdOf(BOT_TOKEN);

let redis: RedisServerHandle;
let peek: Redis;
/** A script-carrying connection for the pacers judged directly (a process gets its one from the factory). */
let connections: RedisConnections;
let state: RedisChannelState;
const decisionsPrefix = `{tgdecide${Date.now()}}:`;
let fake: FakeTelegram;
let gateways: TestGateway[];
let a: Api;
let b: Api;

beforeAll(async () => {
  redis = await startRedisServer();
  peek = new Redis(redis.url);
  connections = new RedisConnections({ url: redis.url, prefix: decisionsPrefix });
  state = new RedisChannelState(connections);
  // Telegram's own limits (the fake's defaults: 1/s per chat, 30/s for the bot, each with 100 ms of slack for
  // loopback jitter): unpaced sends to one chat arrive together, and two per-process budgets go past 30/s.
  fake = await startFakeTelegram();
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
  await connections.close();
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

/**
 * Each 429 the fake answered (retry_after 1) was honoured: the chat's next message reached the fake no sooner than a
 * second later. The pacer's decisions keep 429s away (judged above, on its reservations); whether one still happens
 * depends on how late a loaded host lets a call arrive, so the end-to-end tests judge what askgate does about it.
 */
function waitedOut(calls: FakeCall[]): void {
  for (const refused of tooMany(calls)) {
    const chat = refused.payload['chat_id'];
    const next = calls.find((c) => c.at > refused.at && c.method === refused.method && c.payload['chat_id'] === chat);
    if (next !== undefined) expect(next.at - refused.at).toBeGreaterThanOrEqual(990);
  }
}

describe("the shared pacer's decisions (two pacers, one Redis)", () => {
  const pacer = (): SharedTelegramPacer => new SharedTelegramPacer(state.pacing, BOT);
  const redisNow = async (): Promise<number> => {
    const [seconds, micros] = await peek.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  const spaced = (slots: number[], ms: number): void => {
    const sorted = [...slots].sort((x, y) => x - y);
    for (let i = 1; i < sorted.length; i++)
      expect((sorted[i] as number) - (sorted[i - 1] as number)).toBeGreaterThanOrEqual(ms);
  };

  it('gives the calls to one chat slots at least a second apart, whichever pacer takes them', async () => {
    const [p, q] = [pacer(), pacer()];
    const chats = ['c1', 'c2', 'c3'];
    const decided = await Promise.all(
      chats.flatMap((chat) => [p, q, p, q, p, q].map(async (x) => ({ chat, ...(await x.reserveSlot(chat)) }))),
    );
    for (const chat of chats)
      spaced(
        decided.filter((d) => d.chat === chat).map((d) => d.slotAt),
        1000,
      );
  });

  it('gives the bot at most 30 slots in any second over both pacers, one call per slot', async () => {
    const [p, q] = [pacer(), pacer()];
    const n = 80;
    const slots = (await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? p : q).reserveSlot(`b${i}`)))).map(
      (d) => d.slotAt,
    );
    expect(new Set(slots).size).toBe(n);
    const sorted = [...slots].sort((x, y) => x - y);
    for (let i = 30; i < n; i++)
      expect((sorted[i] as number) - (sorted[i - 30] as number)).toBeGreaterThanOrEqual(1000 - 1);
  });

  it("puts a chat's next slot past another pacer's 429 push-back, and past the last call's answer", async () => {
    const [p, q] = [pacer(), pacer()];
    const before = await redisNow();
    await p.pushBack('pushed', 2000);
    expect((await q.reserveSlot('pushed')).slotAt).toBeGreaterThanOrEqual(before + 2000);
    const answered = await redisNow();
    await p.settled('answered');
    expect((await q.reserveSlot('answered')).slotAt).toBeGreaterThanOrEqual(answered + 1000);
  });

  it('holds every chat back while the bot waits out a bot-wide 429', async () => {
    const [p, q] = [pacer(), pacer()];
    const before = await redisNow();
    await p.pushBack(null, 2000);
    const decided = await Promise.all(['x', 'y', 'z'].map((chat) => q.reserveSlot(chat)));
    for (const d of decided) expect(d.slotAt).toBeGreaterThanOrEqual(before + 2000);
  });
});

describe('Telegram pacing shared over Redis by two gateways', () => {
  it('delivers every message once when both gateways send to one chat at once, waiting out any 429', async () => {
    const from = fake.calls.length;
    const chats = [freshChat(), freshChat(), freshChat()];
    const asks = chats.flatMap((chat) =>
      [a, b, a, b].map((http, i) => ask(http, chat, `Chat ${chat}, question ${i}?`)),
    );
    for (const res of await Promise.all(asks)) expect(res.status, JSON.stringify(res.json)).toBe(201);
    const calls = fake.calls.slice(from);
    for (const chat of chats) expect(sendsTo(calls, chat)).toHaveLength(4);
    waitedOut(calls);
  });

  it('delivers a broadcast from both gateways once per chat, with no 429: one budget of 30/s between them', async () => {
    const from = fake.calls.length;
    const n = 80;
    const asks = Array.from({ length: n }, (_, i) => ask(i % 2 === 0 ? a : b, freshChat(), `Broadcast ${i}?`));
    for (const res of await Promise.all(asks)) expect(res.status, JSON.stringify(res.json)).toBe(201);
    const calls = fake.calls.slice(from);
    // Counts: every chat got its one message at the first try — none refused by the fake's 30 in 900 ms. Two budgets
    // of 30/s (the gateways not sharing one) would go past it; a turn that came late is given up for a new one
    // rather than sent in a bunch (telegram-stall.test.ts), so a loaded host does not either.
    expect(calls.filter((c) => c.method === 'sendMessage').map((c) => c.status)).toEqual(Array(n).fill(200));
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
      Number(await peek.get(keys.paceChat('telegram', BOT, chat))) >= refused.at + 1500 ? true : undefined,
    );
    const second = ask(b, chat, 'Second?');
    expect((await first).status).toBe(201);
    expect((await second).status).toBe(201);
    const calls = fake.calls.slice(from);
    expect(tooMany(calls)).toEqual([refused]);
    const at = sendsTo(calls, chat);
    expect(at).toHaveLength(2);
    for (const t of at) expect(t - refused.at).toBeGreaterThanOrEqual(1990);
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
      Number(await peek.get(keys.pacePause('telegram', BOT))) >= refused.at + 1500 ? true : undefined,
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
