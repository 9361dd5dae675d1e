import { LogLevel, webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackMethodTier } from '../../channels/slack/channel.js';
import { SlackPacer } from '../../channels/slack/pacing.js';
import { SharedPacer, type SharedBudget } from '../../channels/shared-pacing.js';
import type { PacingSlots } from '../../src/core/channel-state.js';
import { SENDER_MESSAGES_PER_SECOND } from '../../channels/twilio/limits.js';
import { GraphClient } from '../../channels/whatsapp/graph-client.js';
import { MESSAGES_PER_SECOND, PER_RECIPIENT_INTERVAL_MS } from '../../channels/whatsapp/limits.js';
import { RedisChannelState } from '../../src/store/redis/channel-state.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { FAKE_SLACK_TOKEN, startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph } from '../fakes/whatsapp-graph.js';
import { PHONE_NUMBER_ID } from '../fakes/whatsapp-webhooks.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The budgets Slack, WhatsApp and Twilio share on one Redis (channels/shared-pacing.ts), held by two "processes":
 * two pacers on two connections of their own. Judged on the pacer's decisions — the slots it reserved, epoch ms by
 * Redis' clock — which do not depend on how busy the host is; and, for a Slack method tier, by a fake Slack that
 * answers 429 to calls of a method closer together than its tier allows (the departure gates hold the actual calls
 * apart, so a loaded host only makes them later). No timed assertions.
 */

const PREFIX = `{sharedpace${Date.now()}}:`;
let redis: RedisServerHandle;
/** Two processes' connection factories on one Redis. */
let processes: [RedisConnections, RedisConnections];
let stores: [PacingSlots, PacingSlots];
let fake: FakeSlack;
let graph: FakeGraph;
/** The number's throughput the WhatsApp test paces to (a small one, so a second holds a few sends). */
const TEST_NUMBER_PER_SECOND = 5;

beforeAll(async () => {
  redis = await startRedisServer();
  processes = [
    new RedisConnections({ url: redis.url, prefix: PREFIX }),
    new RedisConnections({ url: redis.url, prefix: PREFIX }),
  ];
  stores = [new RedisChannelState(processes[0]).pacing, new RedisChannelState(processes[1]).pacing];
  fake = await startFakeSlack({
    // The tier under test: auth.test at 240/min, 250 ms apart; 10 ms allowed for the two clocks' rounding.
    limits: { perChannelGapMs: 0, methodGapMs: { 'auth.test': 240 } },
  });
  // Meta's limits as the fake enforces them for the WhatsApp test: a recipient's sends 1 s apart (10 ms for the
  // clocks' rounding), and the number's sends within a window of a second — with room for a loaded host's jitter,
  // not for a second process's whole budget (2 × 5).
  graph = await startFakeGraph({ limits: { perRecipientGapMs: 990, perWindow: 8, windowMs: 1000 } });
});

afterAll(async () => {
  await fake?.close();
  await graph?.close();
  await Promise.all((processes ?? []).map((p) => p.close()));
  await redis?.stop();
});

let accounts = 0;
/** The same budget in both processes (a fresh account per test, so tests share no keys). */
function pair(budget: Omit<SharedBudget, 'account'>): [SharedPacer, SharedPacer] {
  const account = `account-${++accounts}`;
  return [new SharedPacer(stores[0], { ...budget, account }), new SharedPacer(stores[1], { ...budget, account })];
}

/** Reserves `n` turns alternately from the two pacers, all at once; the slots they were given, sorted. */
async function slotsOf(pacers: [SharedPacer, SharedPacer], n: number, chat: (i: number) => string | null) {
  const decided = await Promise.all(
    Array.from({ length: n }, (_, i) => (pacers[i % 2] as SharedPacer).reserveSlot(chat(i))),
  );
  return decided.map((d) => d.slotAt).sort((a, b) => a - b);
}

const gaps = (slots: number[]): number[] => slots.slice(1).map((s, i) => s - (slots[i] as number));

async function redisNow(): Promise<number> {
  const [s, us] = await processes[0].command().time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

describe('WhatsApp: one number, every process', () => {
  const budget = {
    platform: 'whatsapp',
    perSecond: MESSAGES_PER_SECOND,
    perChatIntervalMs: PER_RECIPIENT_INTERVAL_MS,
  };

  it("keeps the number's throughput across both processes: any second holds at most its messages/s", async () => {
    const slots = await slotsOf(pair(budget), 3 * MESSAGES_PER_SECOND, (i) => `+1555000${i}`);
    for (const [i, slot] of slots.entries()) {
      const inWindow = slots.filter((s) => s >= slot && s < slot + 1000).length;
      expect(inWindow, `window from slot ${i}`).toBeLessThanOrEqual(MESSAGES_PER_SECOND);
    }
    // Two per-process budgets would have put 2 × 80 into the first second.
    expect(slots.length).toBe(3 * MESSAGES_PER_SECOND);
  });

  it('keeps one recipient a second apart, whichever process sends', async () => {
    const slots = await slotsOf(pair(budget), 6, () => '+15550001111');
    for (const gap of gaps(slots)) expect(gap).toBeGreaterThanOrEqual(PER_RECIPIENT_INTERVAL_MS);
  });

  it("a throttle (130429) in one process pushes the other's next send past it", async () => {
    const [a, b] = pair(budget);
    const before = await redisNow();
    await a.pushBack(null, 3_000);
    const { slotAt } = await b.reserveSlot('+15550002222');
    expect(slotAt).toBeGreaterThanOrEqual(before + 3_000);
  });

  it('a pair-rate refusal (131056) pushes back that recipient only, in every process', async () => {
    const [a, b] = pair(budget);
    const before = await redisNow();
    await a.pushBack('+15550003333', 5_000);
    expect((await b.reserveSlot('+15550003333')).slotAt).toBeGreaterThanOrEqual(before + 5_000);
    expect((await b.reserveSlot('+15550004444')).slotAt).toBeLessThan(before + 5_000);
  });
});

describe('WhatsApp: two processes sending from one number to the fake Graph API', () => {
  it("stay within the number's throughput and each recipient's gap: 0 refusals", async () => {
    const account = `number-${++accounts}`;
    const budget = { platform: 'whatsapp', account, perSecond: TEST_NUMBER_PER_SECOND, perChatIntervalMs: 1000 };
    const clients = [0, 1].map(
      (i) =>
        new GraphClient({
          apiUrl: graph.apiUrl,
          token: GRAPH_TOKEN,
          // A refusal fails the send at once: the fake's verdict is not retried away.
          throttleRetries: 0,
          pacer: new SharedPacer(stores[i as 0 | 1], budget),
        }),
    );
    const recipients = ['15550005001', '15550005002', '15550005003'];
    const mark = graph.sent.length;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (clients[i % 2] as GraphClient).sendMessage(PHONE_NUMBER_ID, {
          to: recipients[i % 3] as string,
          type: 'text',
          text: { body: `message ${i}` },
        }),
      ),
    );
    expect(graph.throttled).toBe(0);
    expect(graph.sent.length - mark).toBe(12);
  });
});

describe('Twilio: one sender, every process', () => {
  const budget = { platform: 'twilio', perSecond: SENDER_MESSAGES_PER_SECOND, perChatIntervalMs: 0 };

  it("holds the sender's messages a second apart across both processes", async () => {
    const slots = await slotsOf(pair(budget), 6, () => null);
    for (const gap of gaps(slots)) expect(gap).toBeGreaterThanOrEqual(1000 / SENDER_MESSAGES_PER_SECOND);
  });

  it('gives each sender its own budget', async () => {
    const [one] = pair(budget);
    const [other] = pair(budget);
    const first = await one.reserveSlot(null);
    const second = await other.reserveSlot(null);
    // Another sender's first message does not queue behind this one's.
    expect(second.slotAt).toBeLessThan(first.slotAt + 1000);
  });

  it("a 429 in one process pushes the other's next message past it", async () => {
    const [a, b] = pair(budget);
    const before = await redisNow();
    await a.pushBack(null, 4_000);
    expect((await b.reserveSlot(null)).slotAt).toBeGreaterThanOrEqual(before + 4_000);
  });
});

describe('Slack: every method tier, every process', () => {
  it('spaces a tier (chat.update at 50/min) 1.2 s apart across both processes', async () => {
    const token = `xoxb-tier-${++accounts}`;
    const pacers: [SharedPacer, SharedPacer] = [
      slackMethodTier(stores[0], token, 'chat.update', 50),
      slackMethodTier(stores[1], token, 'chat.update', 50),
    ];
    const slots = await slotsOf(pacers, 6, () => 'method');
    for (const gap of gaps(slots)) expect(gap).toBeGreaterThanOrEqual(1200);
    // Another method's tier is its own: its first call does not wait behind chat.update's.
    const other = slackMethodTier(stores[0], token, 'views.update', 100);
    expect((await other.reserveSlot('method')).slotAt).toBeLessThan(slots[1] as number);
  });

  const client = (): webApi.WebClient =>
    new webApi.WebClient(FAKE_SLACK_TOKEN, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });

  it('two processes calling one method stay within its tier at Slack: 0 × 429, and a 429 pushes both back', async () => {
    const token = `xoxb-fake-${++accounts}`;
    const processPacer = (i: 0 | 1): SlackPacer => {
      const tier = slackMethodTier(stores[i], token, 'auth.test', 240);
      return new SlackPacer({ sharedMethod: (method) => (method === 'auth.test' ? tier : undefined) });
    };
    const pacers = [processPacer(0), processPacer(1)];
    const clients = [client(), client()];
    const limitedBefore = fake.rateLimited;
    const mark = fake.calls.length;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (pacers[i % 2] as SlackPacer).run('auth.test', null, () => (clients[i % 2] as webApi.WebClient).auth.test()),
      ),
    );
    expect(fake.rateLimited - limitedBefore).toBe(0);
    expect(fake.calls.slice(mark).filter((c) => c.method === 'auth.test')).toHaveLength(8);

    // Slack answers one call 429 (Retry-After 2): it is retried after it, and the other process's next call too.
    fake.tooManyRequests('auth.test', 2);
    const tier = slackMethodTier(stores[1], token, 'auth.test', 240);
    const refusedAt = await redisNow();
    await (pacers[0] as SlackPacer).run('auth.test', null, () => (clients[0] as webApi.WebClient).auth.test());
    expect((await tier.reserveSlot('method')).slotAt).toBeGreaterThanOrEqual(refusedAt + 2_000);
  });
});
