import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { until } from '../park/helpers.js';

/**
 * The edges of reminders (docs/reminders.md) against the Telegram fake, a real Redis and BullMQ: an answer between
 * two reminders ends them; `max` reminders are sent and no more; a question that expires before its next reminder
 * gets none after it. One scheduled second lasts SECOND_MS (ASKGATE_TEST_FOLLOW_UP_SECOND_MS), so reminders asked 60 s apart
 * come 6 s apart. What is judged is what the fake received and BullMQ's state of each step (job ids as the docs give
 * them: `remind-<id>-<n>`), never elapsed time.
 */

const TAG = `{fu-edges-${process.pid}}`;
const TG_SECRET = 'tg-webhook-secret_follow-up-edges';
const SECOND_MS = 100;

let redis: RedisServerHandle;
let telegram: FakeTelegram;
let gw: TestGateway;
let connection: Redis;
let queue: Queue;
let chatSeq = 81_000;
/** What the gateway logs at warn and above, parsed: a retry is seen here, at the moment it is decided. */
const logged: Array<Record<string, unknown>> = [];
const logger = pino(
  { level: 'warn' },
  {
    write: (line: string) => {
      logged.push(JSON.parse(line) as Record<string, unknown>);
    },
  },
);

beforeAll(async () => {
  redis = await startRedisServer();
  telegram = await startFakeTelegram();
  gw = await startTestGateway(
    {
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `${TAG}:`,
      TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com',
      ASKGATE_TEST_FOLLOW_UP_SECOND_MS: String(SECOND_MS),
    },
    { logger },
  );
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue('follow-up', { connection, prefix: TAG });
}, 60_000);

afterAll(async () => {
  await queue?.close();
  connection?.disconnect();
  await gw?.close();
  await telegram?.close();
  await redis?.stop();
});

const http = () => api(gw.url, gw.token);

/** Asks a confirm question in a fresh Telegram chat with `remind`; returns its id, chat and question message id. */
async function ask(remind: { every: number; max: number }): Promise<{ id: string; chat: string; messageId: number }> {
  const chat = String(++chatSeq);
  const asked = await http().post('/api/interactions', {
    question: 'Release the hold?',
    answer_format: 'confirm',
    channel: 'telegram',
    recipient: chat,
    timeout: 3600,
    remind,
  });
  expect(asked.status, JSON.stringify(asked.json)).toBe(201);
  const question = telegram.messagesIn(chat)[0];
  expect(question?.text).toContain('Release the hold?');
  return { id: asked.json['id'] as string, chat, messageId: question?.message_id as number };
}

/** The texts of the bot's messages in `chat` that reply to the question: the reminders. */
const reminders = (chat: string, messageId: number): string[] =>
  telegram
    .callsTo('sendMessage')
    .filter(
      (c) =>
        String(c.payload['chat_id']) === chat &&
        c.status === 200 &&
        (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === messageId,
    )
    .map((c) => String(c.payload['text']));

const stateOf = (id: string, n: number): Promise<string> => queue.getJobState(`remind-${id}-${n}`);

const remindedEvents = async (id: string): Promise<Array<Record<string, unknown>>> =>
  ((await http().get(`/api/interactions/${id}/events`)).json['items'] as Array<Record<string, unknown>>).filter(
    (e) => e['type'] === 'reminded',
  );

describe('reminder edges', () => {
  it('ends the reminders when the question is answered between two of them', async () => {
    const { id, chat, messageId } = await ask({ every: 60, max: 3 });
    await until(() => reminders(chat, messageId).length === 1, 'the first reminder', 60_000);
    expect((await http().post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    // The answer removes the two steps still waiting (6 and 12 scheduled seconds away): they never run.
    await until(
      async () => (await stateOf(id, 2)) === 'unknown' && (await stateOf(id, 3)) === 'unknown',
      'the remaining reminders to be removed',
    );
    expect(reminders(chat, messageId)).toEqual([
      '⏰ Reminder 1 of 3: still waiting for your answer to "Release the hold?"',
    ]);
    expect((await remindedEvents(id)).map((e) => e['detail'])).toEqual([{ n: 1, max: 3, recipient: chat }]);
  }, 90_000);

  it('sends max reminders and no more, and the question stays pending after the last', async () => {
    const { id, chat, messageId } = await ask({ every: 60, max: 2 });
    // Both steps run (BullMQ's own state), 6 and 12 scheduled seconds after the ask.
    await until(
      async () => (await stateOf(id, 1)) === 'completed' && (await stateOf(id, 2)) === 'completed',
      'both reminders to run',
      60_000,
    );
    expect(reminders(chat, messageId)).toEqual([
      '⏰ Reminder 1 of 2: still waiting for your answer to "Release the hold?"',
      '⏰ Reminder 2 of 2: still waiting for your answer to "Release the hold?"',
    ]);
    // The ceiling is the schedule itself: there is no third step, waiting or run.
    expect(await stateOf(id, 3)).toBe('unknown');
    expect(telegram.messagesIn(chat)).toHaveLength(3);
    expect((await remindedEvents(id)).map((e) => e['detail'])).toEqual([
      { n: 1, max: 2, recipient: chat },
      { n: 2, max: 2, recipient: chat },
    ]);
    expect((await http().get(`/api/interactions/${id}`)).json['status']).toBe('pending');
  }, 90_000);

  it('tries a reminder again while it cannot reach Telegram, and sends it once when it can', async () => {
    const { id, chat, messageId } = await ask({ every: 60, max: 1 });
    // Nothing listens on the Bot API's address when the reminder is due: the send fails before Telegram could have
    // taken it (ECONNREFUSED), which is the one failure a reminder is tried again for.
    await telegram.refuseConnections();
    const retried = (): boolean =>
      logged.some((l) => l['interaction'] === id && l['msg'] === 'reminder did not reach the platform; trying again');
    try {
      // Until the worker has tried and decided: tried again, or (without the retry) the step is over.
      await until(
        async () => retried() || ['completed', 'failed'].includes(await stateOf(id, 1)),
        'the reminder to be tried',
        60_000,
      );
    } finally {
      await telegram.acceptConnections();
    }
    expect(retried()).toBe(true);
    await until(async () => (await stateOf(id, 1)) === 'completed', 'the reminder step to finish', 60_000);
    expect(reminders(chat, messageId)).toEqual([
      '⏰ Reminder 1 of 1: still waiting for your answer to "Release the hold?"',
    ]);
    const [event, ...more] = await remindedEvents(id);
    expect(more).toEqual([]);
    // The trail says it took more than one try (at least the refused one and the one that arrived).
    expect(event?.['detail']).toEqual({ n: 1, max: 1, recipient: chat, tries: expect.any(Number) });
    expect((event?.['detail'] as { tries: number }).tries).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('sends no reminder after the question expired, though one was still to come', async () => {
    const { id, chat, messageId } = await ask({ every: 60, max: 2 });
    await until(() => reminders(chat, messageId).length === 1, 'the first reminder', 60_000);
    // The deadline comes first: the question expires as the deadline sweep expires it (service.expire, which
    // expireDue calls for each question past its deadline) — a 3600 s deadline is not waited out in a test.
    const stored = await gw.gateway.store.get(id);
    expect(await gw.gateway.service.expire(stored as NonNullable<typeof stored>)).toBe('expired');
    await until(async () => (await stateOf(id, 2)) === 'unknown', 'the second reminder to be removed');
    expect(reminders(chat, messageId)).toEqual([
      '⏰ Reminder 1 of 2: still waiting for your answer to "Release the hold?"',
    ]);
    expect((await http().get(`/api/interactions/${id}`)).json['status']).toBe('expired');
    expect(await remindedEvents(id)).toHaveLength(1);
  }, 90_000);
});
