import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { FOLLOW_UP_QUEUE, type FollowUpJobData, followUpJobId } from '../../src/queue/follow-ups.js';
import { FAKE_SLACK_TOKEN, startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat } from '../channels/telegram-harness.js';
import { api, type Api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { until } from '../park/helpers.js';

/**
 * Reminders and escalation (docs/reminders.md) with `askgate serve` and `askgate worker` as separate processes on
 * one redis-server, against the Telegram and Slack fakes. The schedule keeps its rule (remind.every ≥ 60 s) and runs
 * on the test clock ASKGATE_TEST_FOLLOW_UP_SECOND_MS: one scheduled second lasts SECOND_MS here.
 *
 * What is judged is what the fakes received: each reminder once, as a reply to the question message, never before
 * its time; the escalation once, a new message on its surface; no step sent after the question resolved. "Once" is
 * read when every step's job has finished (BullMQ's own state), not after a pause.
 */

const TOKEN = 'follow-ups-token-0123456789abcdef';
const PREFIX = '{fu}:';
/** Wide enough that a worker restarted after the first reminder is usually up before the escalation is due. */
const SECOND_MS = 200;
const SLACK_SECRET = 'slack-signing-secret-follow-ups-01';

let redis: RedisServerHandle;
let telegram: FakeTelegram;
let slack: FakeSlack;
let serve: GatewayProcess;
let worker: GatewayProcess;
let env: Record<string, string>;
let queueConnection: Redis;
let queue: Queue<FollowUpJobData>;
/** A reader of the same store, for the audit trail the steps write. */
let store: RedisStore;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  [telegram, slack] = await Promise.all([startFakeTelegram(), startFakeSlack()]);
  env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'ops', scopes: ['read', 'write', 'answer'] } }),
    INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com',
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    SLACK_BOT_TOKEN: FAKE_SLACK_TOKEN,
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_URL: slack.apiUrl,
    ASKGATE_TEST_FOLLOW_UP_SECOND_MS: String(SECOND_MS),
  };
  // One after the other: two Node processes starting at once on a loaded host can outlast the helper's wait.
  serve = await spawnGateway('serve', env);
  worker = await spawnGateway('worker', env);
  queueConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue<FollowUpJobData>(FOLLOW_UP_QUEUE, { connection: queueConnection, prefix: '{fu}' });
  store = await RedisStore.connect({ url: redis.url, prefix: PREFIX, idleTtlSeconds: 3600 });
}, 60_000);

afterAll(async () => {
  await queue?.close();
  await store?.close();
  queueConnection?.disconnect();
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([telegram?.close(), slack?.close()]);
  await redis?.stop();
});

const http = (): Api => api(serve.url as string, TOKEN);

/** The Telegram sendMessage calls into `chat` that reply to message `messageId`. */
const repliesTo = (chat: string, messageId: number) =>
  telegram
    .callsTo('sendMessage')
    .filter(
      (c) =>
        String(c.payload['chat_id']) === chat &&
        (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === messageId,
    );

/** Every step's job has run (or was removed): nothing can be sent any more. */
async function stepsSettled(steps: FollowUpJobData[]): Promise<boolean> {
  const states = await Promise.all(steps.map((s) => queue.getJobState(followUpJobId(s))));
  return states.every((s) => s === 'completed' || s === 'failed' || s === 'unknown');
}

describe('reminders and escalation', () => {
  it('reminds twice in the thread and escalates once, at their times, exactly once each, across a killed worker', async () => {
    const chat = freshChat();
    const escalateTo = 'C0ESCALATE1';
    const asked = await http().post('/api/interactions', {
      question: 'Approve the spend?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
      timeout: 3600,
      remind: { every: 60, max: 2 },
      escalate: [{ after: 90, channel: 'slack', recipient: escalateTo }],
    });
    expect(asked.status).toBe(201);
    expect(asked.json['remind']).toEqual({ every: 60, max: 2 });
    const id = asked.json['id'] as string;
    const createdMs = Date.parse(asked.json['created_at'] as string);
    const question = telegram.messagesIn(chat)[0];
    expect(question?.text).toContain('Approve the spend?');
    const messageId = question?.message_id as number;

    // The first reminder, then the worker dies (SIGKILL: no clean stop) and a new one takes over the schedule.
    await until(() => repliesTo(chat, messageId).length === 1, 'the first reminder', 60_000);
    await until(
      async () => ((await store.events(id)) ?? []).some((e) => e.type === 'reminded'),
      'the first reminder in the trail',
    );
    await worker.stop('SIGKILL');
    worker = await spawnGateway('worker', env);

    await until(() => repliesTo(chat, messageId).length === 2, 'the second reminder', 60_000);
    /** The messages posted to the escalation's Slack channel: the question (top level) and reminders (in its thread). */
    const slackPosts = () => slack.callsTo('chat.postMessage').filter((c) => c.args['channel'] === escalateTo);
    await until(() => slackPosts().some((c) => c.args['thread_ts'] === undefined), 'the escalation');
    const steps: FollowUpJobData[] = [
      { id, kind: 'remind', n: 1 },
      { id, kind: 'remind', n: 2 },
      { id, kind: 'escalate', step: 0 },
    ];
    await until(() => stepsSettled(steps), 'every step to finish', 60_000);

    const reminders = repliesTo(chat, messageId);
    expect(reminders.map((c) => c.payload['text'])).toEqual([
      expect.stringContaining('Reminder 1 of 2'),
      expect.stringContaining('Reminder 2 of 2'),
    ]);
    const escalations = slackPosts().filter((c) => c.args['thread_ts'] === undefined);
    expect(escalations).toHaveLength(1);
    // The escalated surface is one of the question's surfaces from then on: a reminder due after the escalation ran
    // replies in its thread too. (Both may come due at once when the new worker starts late; then either order is
    // right, so only "at most the second reminder, once" is asserted here.)
    const slackReminders = slackPosts().filter((c) => c.args['thread_ts'] !== undefined);
    expect(slackReminders.length).toBeLessThanOrEqual(1);
    for (const r of slackReminders) expect(String(r.args['text'])).toContain('Reminder 2 of 2');
    expect(String(escalations[0]?.args['text'])).toContain('Approve the spend?');
    // Never early: each step arrived at or after its scheduled second (a late worker may only make it later).
    expect(reminders[0]?.at).toBeGreaterThanOrEqual(createdMs + 60 * SECOND_MS);
    expect(escalations[0]?.at).toBeGreaterThanOrEqual(createdMs + 90 * SECOND_MS);
    expect(reminders[1]?.at).toBeGreaterThanOrEqual(createdMs + 120 * SECOND_MS);
    // Nothing but the reminders went into the chat: the question was not sent again.
    expect(telegram.messagesIn(chat)).toHaveLength(3);

    // The answer reaches both surfaces: the Telegram question and the escalated Slack message show the outcome.
    expect((await http().post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    const slackTs = slack.messagesIn(escalateTo)[0]?.ts;
    await until(() => (telegram.message(chat, messageId)?.history.length ?? 0) > 1, 'the Telegram outcome edit');
    await until(
      () => slack.callsTo('chat.update').some((c) => c.args['channel'] === escalateTo && c.args['ts'] === slackTs),
      'the Slack outcome edit',
    );

    const trail = (await store.events(id)) ?? [];
    // One `reminded` per surface a reminder went out on; one `escalated`.
    expect(
      trail
        .filter((e) => e.type === 'reminded')
        .map((e) => e.surface)
        .sort(),
    ).toEqual([...slackReminders.map(() => 'slack'), 'telegram', 'telegram']);
    expect(trail.filter((e) => e.type === 'escalated').map((e) => e.surface)).toEqual(['slack']);
  }, 180_000);

  it('removes the waiting steps when the question is answered, and a step that still fires sends nothing', async () => {
    const chat = freshChat();
    const asked = await http().post('/api/interactions', {
      question: 'Merge it?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
      timeout: 3600,
      remind: { every: 60, max: 3 },
    });
    expect(asked.status).toBe(201);
    const id = asked.json['id'] as string;
    const steps: FollowUpJobData[] = [1, 2, 3].map((n) => ({ id, kind: 'remind', n }));
    expect(await queue.getJobState(followUpJobId(steps[0] as FollowUpJobData))).toBe('delayed');

    expect((await http().post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    await until(
      async () =>
        (await Promise.all(steps.map((s) => queue.getJobState(followUpJobId(s))))).every((s) => s === 'unknown'),
      'the steps to be removed',
    );

    // A step whose removal lost the race runs after the answer: it finds the question resolved and sends nothing.
    const late: FollowUpJobData = { id, kind: 'remind', n: 1 };
    await queue.add('remind', late, { jobId: followUpJobId(late) });
    await until(async () => (await queue.getJobState(followUpJobId(late))) === 'completed', 'the late step to run');
    const question = telegram.messagesIn(chat)[0];
    expect(repliesTo(chat, question?.message_id as number)).toHaveLength(0);
    expect(telegram.messagesIn(chat)).toHaveLength(1);
  }, 60_000);

  // Expiry takes the same path (every resolution removes the steps) but is not shown here: the test clock shortens
  // the steps and not the deadline, so every step validation allows is due before the deadline.
  it('removes the waiting reminders and escalation when the asker cancels the question', async () => {
    const chat = freshChat();
    const asked = await http().post('/api/interactions', {
      question: 'Deploy it?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
      timeout: 3600,
      remind: { every: 60, max: 2 },
      escalate: [{ after: 120, channel: 'slack', recipient: 'C0ESCALATE2' }],
    });
    expect(asked.status).toBe(201);
    const id = asked.json['id'] as string;
    const steps: FollowUpJobData[] = [
      { id, kind: 'remind', n: 1 },
      { id, kind: 'remind', n: 2 },
      { id, kind: 'escalate', step: 0 },
    ];
    for (const step of steps) expect(await queue.getJobState(followUpJobId(step))).toBe('delayed');

    expect((await http().delete(`/api/interactions/${id}`)).status).toBe(200);
    expect((await store.get(id))?.status).toBe('cancelled');
    await until(
      async () =>
        (await Promise.all(steps.map((s) => queue.getJobState(followUpJobId(s))))).every((s) => s === 'unknown'),
      'the steps to be removed',
    );
    expect(repliesTo(chat, telegram.messagesIn(chat)[0]?.message_id as number)).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage').filter((c) => c.args['channel'] === 'C0ESCALATE2')).toHaveLength(0);
  }, 60_000);
});
