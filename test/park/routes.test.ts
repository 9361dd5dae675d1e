import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleShard } from '../../src/queue/queue-shards.js';
import { ResumeProducer } from '../../src/queue/queues.js';
import { Keys } from '../../src/store/keys.js';
import { startFakeTelegram, type FakeCall, type FakeMessage, type FakeTelegram } from '../fakes/telegram-server.js';
import { PERSON, nextUpdateId, postUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  holds,
  inMs,
  spawnContinuationWorker,
  startVerifyingServer,
  stopChild,
  until,
  webhookSecret,
} from './helpers.js';

/**
 * Runs reached over chat (docs/parks.md, "Routes"), all real processes on one redis-server: an `askgate serve`
 * takes the Telegram fake's webhook, an `askgate worker` delivers turns and posts replies, a route target (a
 * webhook server here, or an SDK worker process) answers at once or parks; a parked run's late reply lands in the
 * originating chat, quoting the message that started it.
 */

const TOKEN = 'route-concierge-token-0123456789abc';
const PREFIX = '{rt}:';
const SECRET = webhookSecret();
const TG_SECRET = 'tg-route-webhook-secret_0123456789';
const TG_TOKEN = '123456:ROUTE-token-for-the-fake';
const HANDLER_CHAT = '7100001';
const ROUTE_WORKER = fileURLToPath(new URL('../fixtures/route-worker.mjs', import.meta.url));
let chatSeq = 7_200_000;
const freshChat = (): string => String(++chatSeq);
let messageSeq = 50_000;

let redis: RedisServerHandle;
let fake: FakeTelegram;
let target: Target;
let serve: GatewayProcess;
let worker: GatewayProcess;
const children: ChildProcess[] = [];

/** The route's webhook target: answers `ping` at once, parks a confirm ask for anything else. */
interface Target {
  url: string;
  turns: Array<{ id: string; body: Record<string, unknown> }>;
  resumes: Array<{ id: string; body: Record<string, unknown> }>;
  refused: string[];
  unverified: number;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const t: Omit<Target, 'url' | 'close'> = { turns: [], resumes: [], refused: [], unverified: 0 };
  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (
    path: string,
    id: string,
    body: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<void> => {
    if (path === '/turn') {
      t.turns.push({ id, body });
      const turn = body['turn'] as { text: string; thread: { recipient: string } };
      if (turn.text === 'ping') return send(res, 200, { text: 'pong' });
      // Park: a confirm ask in the same chat, under the turn's run id, so the run remembers its thread.
      const parked = await api(serve.url as string, TOKEN).post('/api/interactions', {
        question: `Run "${turn.text}"?`,
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        channel: 'telegram',
        recipient: turn.thread.recipient,
        run: {
          run_id: body['run_id'],
          resume: { webhook: `${server.url}/fail-first/resume` },
          state: { asked: turn.text },
        },
      });
      return send(res, parked.status === 201 ? 204 : 500);
    }
    // The first delivery of each resume is refused, so the late reply only follows a retried continuation.
    if (!t.refused.includes(id)) {
      t.refused.push(id);
      return send(res, 500);
    }
    t.resumes.push({ id, body });
    const state = body['state'] as { asked: string };
    const answer = (body['ask_result'] as { answer: boolean }).answer;
    send(res, 200, { text: `${state.asked}: ${answer ? 'done' : 'skipped'}` });
  };
  const server = await startVerifyingServer(
    SECRET,
    ({ path, id, body }, res) => void handle(path, id, body, res).catch(() => send(res, 500)),
    () => (t.unverified += 1),
  );
  return Object.assign(t, server);
}

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  [fake, target] = await Promise.all([startFakeTelegram({ token: TG_TOKEN }), startTarget()]);
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'concierge', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    TELEGRAM_BOT_TOKEN: TG_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: fake.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ASKGATE_ROUTES: JSON.stringify([
      {
        name: 'desk',
        channel: 'telegram',
        chat: HANDLER_CHAT,
        identity: 'concierge',
        target: { handler: 'concierge' },
      },
      {
        name: 'ops',
        channel: 'telegram',
        identity: 'concierge',
        target: { webhook: `${target.url}/turn` },
        reply: { template: 'bot: {{output.text}}' },
      },
    ]),
  };
  [serve, worker] = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env)]);
});

afterAll(async () => {
  await Promise.all(children.map((c) => stopChild(c, 'SIGKILL')));
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([target?.close(), fake?.close()]);
  await redis?.stop();
});

/** A person writes `text` in `chatId`, quoting nothing; returns the message id. */
async function say(chatId: string, text: string): Promise<string> {
  const messageId = ++messageSeq;
  const update = {
    update_id: nextUpdateId(),
    message: {
      message_id: messageId,
      date: 1_700_000_200,
      chat: { id: Number(chatId), type: 'private', first_name: 'Ada' },
      from: PERSON,
      text,
    },
  };
  expect(await postUpdate(serve.url as string, TG_SECRET, update)).toBe(200);
  return String(messageId);
}

/** The bot's messages in `chatId` that quote message `messageId`: the replies into that thread. */
const repliesTo = (chatId: string, messageId: string): FakeCall[] =>
  fake
    .callsTo('sendMessage')
    .filter(
      (c) =>
        String(c.payload['chat_id']) === chatId &&
        (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === Number(messageId),
    );

async function questionIn(chatId: string): Promise<FakeMessage> {
  let question: FakeMessage | undefined;
  await until(
    () => (question = fake.messagesIn(chatId).find((m) => m.reply_markup !== null)) !== undefined,
    `a question in chat ${chatId}`,
  );
  return question as FakeMessage;
}

const runOf = (chatId: string, messageId: string): string => `turn:telegram:${chatId}:${messageId}`;
const runView = async (runId: string) =>
  (await api(serve.url as string, TOKEN).get(`/api/runs/${encodeURIComponent(runId)}`)).json;

describe('runs reached over chat', () => {
  it('hands a message that answers no question to the route webhook, and posts its immediate reply into the chat', async () => {
    const chat = freshChat();
    const messageId = await say(chat, 'ping');
    await until(() => repliesTo(chat, messageId).length === 1, 'the immediate reply');
    expect(repliesTo(chat, messageId)[0]?.payload['text']).toBe('bot: pong');
    const turn = target.turns.find((t) => t.body['run_id'] === runOf(chat, messageId));
    expect(turn?.body).toMatchObject({
      type: 'conversation.turn',
      identity: 'concierge',
      route: 'ops',
      turn: {
        channel: 'telegram',
        thread: { recipient: chat, message_id: messageId },
        text: 'ping',
        reply_to: null,
        from: 'telegram:@ada',
        params: { chat_id: chat, from_username: 'ada' },
      },
    });
    expect(turn?.id).toBe(`msg_${turn?.body['resume_id'] as string}`);
    expect(target.unverified).toBe(0);
  });

  it("posts a parked run's late reply into the originating thread once, after a tap in the same chat resumes it", async () => {
    const chat = freshChat();
    const messageId = await say(chat, 'deploy v2');
    const question = await questionIn(chat);
    expect(question.text).toContain('Run "deploy v2"?');
    const runId = runOf(chat, messageId);
    expect(await runView(runId)).toMatchObject({ status: 'parked', identity: 'concierge', parks: 1 });
    // Two taps: the second finds the question answered and changes nothing.
    expect(await postUpdate(serve.url as string, TG_SECRET, tapUpdate(question, { label: 'Yes' }))).toBe(200);
    expect(await postUpdate(serve.url as string, TG_SECRET, tapUpdate(question, { label: 'Yes' }))).toBe(200);
    await until(() => repliesTo(chat, messageId).length === 1, 'the late reply');
    expect(repliesTo(chat, messageId)[0]?.payload['text']).toBe('bot: deploy v2: done');
    await until(async () => (await runView(runId))['status'] === 'resumed', 'the run to record completion');
    // The continuation was retried once (the first delivery was refused) and delivered once.
    expect(target.resumes.filter((r) => r.body['run_id'] === runId)).toHaveLength(1);
    expect(target.refused).toContain(target.resumes.find((r) => r.body['run_id'] === runId)?.id);

    // Duplicates as askgate itself makes them: the sweep or a second gateway enqueues the resume again and a rerun
    // continuation enqueues its reply again, both through askgate's producer. And a resume job under an id no
    // dedupe knows (a job that outlived its kept id): only the run's own state can keep that one from resuming.
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const producer = new ResumeProducer(connection, singleShard(new Keys(PREFIX)));
    const [resumeQueue, replyQueue] = [
      new Queue('resume', { connection, prefix: '{rt}' }),
      new Queue('reply', { connection, prefix: '{rt}' }),
    ] as const;
    try {
      await producer.enqueueResume(runId, 1);
      const thread = { channel: 'telegram', recipient: chat, replyToMessageId: messageId, route: 'ops' };
      await producer.enqueueReply({ runId, generation: 1, thread, output: { text: 'again' } });
      const stray = await resumeQueue.add('resume', { runId, generation: 1 }, { jobId: `stray-${messageId}` });
      await until(async () => (await stray.getState()) === 'completed', 'the stray resume job to be processed');
      const unsettled = async (): Promise<number> =>
        Object.values(await replyQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).reduce(
          (a, b) => a + b,
          0,
        );
      await until(async () => (await unsettled()) === 0, 'the reply queue to settle');
    } finally {
      await Promise.all([resumeQueue.close(), replyQueue.close(), producer.close()]);
      connection.disconnect();
    }
    await holds(
      () =>
        repliesTo(chat, messageId).length === 1 &&
        target.resumes.filter((r) => r.body['run_id'] === runId).length === 1,
      'one reply and one resume delivery of the run',
    );
  });

  it('runs a handler route on an SDK worker: the turn parks, and the resumed return value lands in the thread', async () => {
    children.push(await spawnContinuationWorker({ GATEWAY_URL: serve.url as string, TOKEN }, ROUTE_WORKER));
    const messageId = await say(HANDLER_CHAT, 'rollback');
    const question = await questionIn(HANDLER_CHAT);
    expect(question.text).toContain('Approve "rollback"?');
    // The most specific route took it: the webhook target never saw this chat.
    expect(
      target.turns.some((t) => (t.body['turn'] as { thread: { recipient: string } }).thread.recipient === HANDLER_CHAT),
    ).toBe(false);
    expect(await postUpdate(serve.url as string, TG_SECRET, tapUpdate(question, { label: 'No' }))).toBe(200);
    await until(() => repliesTo(HANDLER_CHAT, messageId).length === 1, 'the late reply from the handler');
    expect(repliesTo(HANDLER_CHAT, messageId)[0]?.payload['text']).toBe('rollback: declined');
    await until(
      async () => (await runView(runOf(HANDLER_CHAT, messageId)))['status'] === 'resumed',
      'the handler run to complete',
    );
    // A worker process of its own starts first (Node and the SDK loading): on a 2-core machine running a second
    // suite beside this one that alone has taken most of the default 30 s. Order is what is checked, not speed.
  }, 90_000);
});
