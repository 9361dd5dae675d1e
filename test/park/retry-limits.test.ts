import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { PERSON, nextUpdateId, postUpdate } from '../fakes/telegram-updates.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startVerifyingServer, until, webhookSecret } from './helpers.js';

/**
 * The retry limits of the park queues, as documented:
 * - docs/reliability.md: a failed continuation's delay "doubles per attempt from ASKGATE_RESUME_BACKOFF_MS (with
 *   jitter: between half and all of it), capped at 15 minutes";
 * - docs/parks.md, "The reply job": a reply is "retried with the resume backoff …; given up after 30 attempts".
 *
 * Nobody waits 15 minutes, or 30 doubling delays, in a test: each delayed job is promoted (BullMQ's own "run it now")
 * as soon as it is seen delayed, and what is judged is what BullMQ recorded (the job's delay, its attempts, its
 * state) and what the targets received. Order and counts, never elapsed time. The queues are named as the docs name
 * them (`resume`, `reply`, under the deployment's hash tag); the job ids of docs/parks.md are written out here.
 */

const TOKEN = 'retry-limits-token-0123456789abcdef';
const SECRET = webhookSecret();
const TAG = `{retry-${process.pid}}`;
const TG_SECRET = 'tg-webhook-secret_retry-limits';
/** Ten minutes: the second doubling (20 min) is already over the cap, and the first (10 min) under it. */
const BACKOFF_MS = 600_000;
const CAP_MS = 15 * 60_000;

let redis: RedisServerHandle;
let telegram: FakeTelegram;
let target: { url: string; close(): Promise<void> };
let gw: TestGateway;
let connection: Redis;
let resumeQueue: Queue;
let replyQueue: Queue;
/** Resume deliveries the target refused (it refuses every one). */
let resumeAttempts = 0;

beforeAll(async () => {
  redis = await startRedisServer();
  telegram = await startFakeTelegram();
  target = await startVerifyingServer(
    SECRET,
    ({ path }, res) => {
      if (path === '/turn') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'pong' }));
        return;
      }
      resumeAttempts++;
      res.writeHead(500).end();
    },
    () => undefined,
  );
  gw = await startTestGateway({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: `${TAG}:`,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'retrier', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: String(BACKOFF_MS),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    ASKGATE_ROUTES: JSON.stringify([
      { name: 'desk', channel: 'telegram', identity: 'retrier', target: { webhook: `${target.url}/turn` } },
    ]),
  });
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  resumeQueue = new Queue('resume', { connection, prefix: TAG });
  replyQueue = new Queue('reply', { connection, prefix: TAG });
}, 60_000);

afterAll(async () => {
  await resumeQueue?.close();
  await replyQueue?.close();
  connection?.disconnect();
  await gw?.close();
  await target?.close();
  await telegram?.close();
  await redis?.stop();
});

const http = () => api(gw.url, TOKEN);
const b64 = (s: string): string => Buffer.from(s).toString('base64url');

/** Waits until `job` has failed `attempts` times in all and sits delayed for its next try; returns it as stored. */
async function delayedAfter(queue: Queue, id: string, attempts: number): Promise<Job> {
  let job: Job | undefined;
  await until(async () => {
    job = await queue.getJob(id);
    return job !== undefined && job.attemptsMade === attempts && (await job.getState()) === 'delayed';
  }, `${id} delayed after ${attempts} failed attempts`);
  return job as Job;
}

describe('the resume backoff', () => {
  it('doubles from ASKGATE_RESUME_BACKOFF_MS with jitter, and never waits more than 15 minutes', async () => {
    const runId = 'run-backoff-cap';
    const asked = await http().post('/api/interactions', {
      question: 'Deploy?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      run: { run_id: runId, resume: { webhook: `${target.url}/resume` } },
    });
    expect(asked.status, JSON.stringify(asked.json)).toBe(201);
    expect((await http().post(`/api/interactions/${asked.json['id']}/answer`, { answer: true })).status).toBe(200);
    // The run's first park is generation 1: its resume job (docs/parks.md) is resume-<base64url run id>-1.
    const jobId = `resume-${b64(runId)}-1`;
    const delays: number[] = [];
    for (let attempts = 1; attempts <= 4; attempts++) {
      const job = await delayedAfter(resumeQueue, jobId, attempts);
      delays.push(job.delay);
      if (attempts < 4) await job.promote();
    }
    // After failure n the wait is in [d/2, d], d = min(10 min · 2^(n-1), 15 min): 5–10 min, then 7.5–15 min on.
    expect(delays[0]).toBeGreaterThanOrEqual(300_000);
    expect(delays[0]).toBeLessThanOrEqual(600_000);
    for (const delay of delays.slice(1)) {
      expect(delay).toBeGreaterThanOrEqual(CAP_MS / 2);
      expect(delay).toBeLessThanOrEqual(CAP_MS);
    }
    expect(resumeAttempts).toBe(4);
    expect((await http().get(`/api/runs/${runId}`)).json['resume_attempts']).toBe(4);
  });
});

describe('the reply job', () => {
  it('is tried 30 times when the channel keeps refusing the post, then given up', async () => {
    const chat = '71001';
    const messageId = 501;
    // Telegram answers 500 to every post from here on (more than the 30 tries, so a 31st would be refused as well).
    telegram.failNext('sendMessage', { status: 500, error_code: 500, description: 'Internal Server Error' }, 40);
    const update = {
      update_id: nextUpdateId(),
      message: {
        message_id: messageId,
        date: 1_700_000_200,
        chat: { id: Number(chat), type: 'private', first_name: 'Ada' },
        from: PERSON,
        text: 'ping',
      },
    };
    expect(await postUpdate(gw.url, TG_SECRET, update)).toBe(200);
    // The turn's run is turn:telegram:<chat>:<message>; its immediate reply is reply-<base64url run id>-0.
    const jobId = `reply-${b64(`turn:telegram:${chat}:${messageId}`)}-0`;
    const posts = () =>
      telegram
        .callsTo('sendMessage')
        .filter(
          (c) =>
            String(c.payload['chat_id']) === chat &&
            (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === messageId,
        );
    let state = '';
    await until(
      async () => {
        const job = await replyQueue.getJob(jobId);
        state = job === undefined ? 'unknown' : await job.getState();
        if (state === 'delayed') await (job as Job).promote();
        return state === 'failed' || posts().length > 31;
      },
      'the reply job to be given up',
      120_000,
    );
    const job = (await replyQueue.getJob(jobId)) as Job;
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(30);
    expect(posts().map((c) => c.status)).toEqual(Array.from({ length: 30 }, () => 500));
    expect(posts()[0]?.payload['text']).toBe('pong');
  }, 180_000);
});
