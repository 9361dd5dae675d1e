import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';

/**
 * Adding a surface to a pending question (docs/surfaces.md "Adding a surface later"; docs/reminders.md
 * "Escalation"), through the only door that does it — an `escalate` step — against the Telegram fake: a step naming a
 * surface the question already has delivers nothing and writes no `escalated` event; a step whose send the platform
 * refuses records that surface as failed (with Telegram's words) and an `escalated` event with outcome `failed`,
 * while the question, still delivered on its first surface, is not undeliverable. Each test ends with a later step
 * to a fresh chat, so "nothing was sent" is judged after the step before it ran, by order, not by waiting.
 */

type Rec = Record<string, unknown>;

let redis: RedisServerHandle;
let w: TelegramWorld;
beforeAll(async () => {
  redis = await startRedisServer();
  w = await startTelegramWorld({ REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{escalate-${process.pid}}:` });
}, 60_000);
afterAll(async () => {
  await w?.close();
  await redis?.stop();
});

const sendsTo = (chat: string) =>
  w.fake.callsTo('sendMessage').filter((c) => String(c.payload['chat_id']) === chat && c.status === 200);
const trail = async (id: string): Promise<Rec[]> =>
  (await w.http.get(`/api/interactions/${id}/events`)).json['items'] as Rec[];
/** The `escalated` events of a question (written after the step's send, so waited for rather than the send). */
const escalatedTo = async (id: string): Promise<Rec[]> =>
  (await trail(id)).filter((e) => e['type'] === 'escalated').map((e) => e['detail'] as Rec);
const until = async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never: ${what}`);
};

describe('escalation: deliverToSurface refusals', () => {
  it('a step naming a surface the question already has delivers nothing there and writes no escalated event', async () => {
    const [first, later] = [freshChat(), freshChat()];
    const asked = await w.ask({
      question: 'Already here?',
      answer_format: 'confirm',
      recipient: first,
      escalate: [
        { after: 1, channel: 'telegram', recipient: first },
        { after: 2, channel: 'telegram', recipient: later },
      ],
    });
    await until('the second step', async () => (await escalatedTo(asked.id)).some((d) => d['recipient'] === later));
    expect(sendsTo(later)).toHaveLength(1);
    expect(sendsTo(first)).toHaveLength(1);
    expect((await escalatedTo(asked.id)).map((d) => d['recipient'])).toEqual([later]);
  });

  it('a step the platform refuses records that surface failed, and the question stays deliverable', async () => {
    const [first, gone, later] = [freshChat(), freshChat(), freshChat()];
    w.fake.forgetChat(gone);
    const asked = await w.ask({
      question: 'Reach the gone chat?',
      answer_format: 'confirm',
      recipient: first,
      escalate: [
        { after: 1, channel: 'telegram', recipient: gone },
        { after: 2, channel: 'telegram', recipient: later },
      ],
    });
    await until('the second step', async () => (await escalatedTo(asked.id)).some((d) => d['recipient'] === later));
    const record = await w.record(asked.id);
    const deliveries = record['deliveries'] as Rec[];
    expect(deliveries.map((d) => [d['recipient'], d['status']])).toEqual([
      [first, 'sent'],
      [gone, 'failed'],
      [later, 'sent'],
    ]);
    expect(deliveries[1]?.['error']).toMatchObject({ message: expect.stringContaining('chat not found') });
    expect(record['undeliverable']).toBeUndefined();
    expect((await escalatedTo(asked.id)).map((d) => [d['recipient'], d['outcome']])).toEqual([
      [gone, 'failed'],
      [later, 'sent'],
    ]);
  });

  it('a step after the question was answered sends nothing', async () => {
    const [first, later] = [freshChat(), freshChat()];
    const asked = await w.ask({
      question: 'Answered first?',
      answer_format: 'confirm',
      recipient: first,
      escalate: [{ after: 1, channel: 'telegram', recipient: later }],
    });
    expect((await w.http.post(`/api/interactions/${asked.id}/answer`, { answer: true })).json).toEqual({
      status: 'answered',
    });
    // The answer removed the step; were it to run, it would read the question resolved. A second question's step,
    // due later, runs after its time: by then the first one's would have too.
    const other = await w.ask({
      question: 'Marker',
      answer_format: 'confirm',
      recipient: freshChat(),
      escalate: [{ after: 2, channel: 'telegram', recipient: freshChat() }],
    });
    await until('the marker step', async () => (await trail(other.id)).some((e) => e['type'] === 'escalated'));
    expect(sendsTo(later)).toHaveLength(0);
    expect(await escalatedTo(asked.id)).toEqual([]);
  });
});
