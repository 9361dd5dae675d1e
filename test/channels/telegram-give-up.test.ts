import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelError } from '../../channels/contract.js';
import { TelegramChannel } from '../../channels/telegram/plugin.js';
import { RedisChannelState } from '../../src/store/redis/channel-state.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { makeInteraction } from '../store/fixtures.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';

/**
 * When Telegram sending gives up instead of waiting (channels/telegram/README.md, "Limits and pacing"): a 429 whose
 * retry_after is over 30 s, or a fourth 429 in a row, fails the delivery with Telegram's 429 — a 502 to the asker and
 * a cancelled question; and a shared budget whose Redis does not answer fails the send rather than send unpaced.
 * The numbers are the README's, written out here: a change of them in the code must fail these tests.
 */

/** "3 times at most" (channels/telegram/README.md): three retries, four sends in all. */
const DOCUMENTED_RETRIES = 3;
/** "only for a retry_after up to 30 s". */
const DOCUMENTED_LONGEST_WAIT_S = 30;

describe('Telegram: a 429 that is not worth waiting for answers the asker', () => {
  let w: TelegramWorld;
  beforeAll(async () => {
    w = await startTelegramWorld();
  });
  afterAll(async () => w?.close());

  const askIn = (chat: string) =>
    w.http.post('/api/interactions', {
      question: 'Now?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
    });
  const sendsTo = (chat: string) => w.fake.callsTo('sendMessage').filter((c) => String(c.payload['chat_id']) === chat);

  it(`gives up at once on a retry_after over ${DOCUMENTED_LONGEST_WAIT_S} s: one send, a 502 naming the 429`, async () => {
    const chat = freshChat();
    w.fake.tooManyRequests('sendMessage', DOCUMENTED_LONGEST_WAIT_S + 1);
    const started = Date.now();
    const res = await askIn(chat);
    // Waiting it out would take 31 s; giving up takes a round trip. 20 s is a margin a loaded host keeps.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: 'telegram' });
    expect(res.json['message']).toMatch(/429/);
    expect(sendsTo(chat)).toHaveLength(1);
    expect((await w.record(res.json['interaction_id'] as string))['status']).toBe('cancelled');
  });

  it(`retries a short 429 ${DOCUMENTED_RETRIES} times, then gives up with a 502`, async () => {
    const chat = freshChat();
    w.fake.tooManyRequests('sendMessage', 1, DOCUMENTED_RETRIES + 1);
    const res = await askIn(chat);
    expect(res.status).toBe(502);
    expect(res.json['message']).toMatch(/429/);
    expect(sendsTo(chat).map((c) => c.status)).toEqual([429, 429, 429, 429]);
    expect((await w.record(res.json['interaction_id'] as string))['status']).toBe('cancelled');
  });

  it(`delivers when the ${DOCUMENTED_RETRIES}rd retry goes through`, async () => {
    const chat = freshChat();
    w.fake.tooManyRequests('sendMessage', 1, DOCUMENTED_RETRIES);
    const res = await askIn(chat);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(sendsTo(chat).map((c) => c.status)).toEqual([429, 429, 429, 200]);
  });
});

describe('Telegram: the shared budget with its Redis unreachable', () => {
  let redis: RedisServerHandle;
  let fake: FakeTelegram;
  let connections: RedisConnections;
  let channel: TelegramChannel;

  beforeAll(async () => {
    redis = await startRedisServer({ own: true });
    fake = await startFakeTelegram();
    connections = new RedisConnections({ url: redis.url, prefix: '{tgdown}:' });
    channel = new TelegramChannel({
      botToken: BOT_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
      apiRoot: fake.apiRoot,
      sharedPacing: new RedisChannelState(connections).pacing,
    });
  });
  afterAll(async () => {
    await channel?.stop();
    await connections?.close();
    await fake?.close();
    await redis?.stop();
  });

  it('fails the delivery (which the pipeline answers 502) and sends nothing unpaced', async () => {
    const chat = freshChat();
    const ask = () => makeInteraction({ channel: 'telegram', recipient: chat, answer_format: 'confirm' });
    // Paced through Redis while it answers.
    expect(await channel.deliver(ask(), 'http://127.0.0.1:1/cb')).toMatchObject({ chat_id: chat });
    await redis.stop();
    const failed = await channel.deliver(ask(), 'http://127.0.0.1:1/cb').then(
      () => null,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(ChannelError);
    expect((failed as ChannelError).message).not.toContain(BOT_TOKEN.split(':')[1]);
    expect(fake.callsTo('sendMessage').filter((c) => String(c.payload['chat_id']) === chat)).toHaveLength(1);
  });
});
