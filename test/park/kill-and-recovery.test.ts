import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { resumeJobId } from '../../src/runs/job-bus.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat } from '../channels/telegram-harness.js';
import { holds, inMs, startReceiver, until, webhookSecret, type Receiver } from './helpers.js';

/**
 * The kill paths and the recovery sweep of docs/parks.md: cancelling a parked ask kills its run and its parked
 * parent; a killed run's channel asks get their outcome edit; a channel ask whose delivery fails while parking is a
 * 502 and a kill; and a ready run whose resume enqueue was lost is re-enqueued by the sweep. In-process gateways
 * with workers on one real redis-server, against the Telegram fake.
 */

const ALICE = 'park-kill-token-alice-0123456789ab';
const BOB = 'park-kill-token-bob-0123456789abcd';
const PREFIX = '{pk}:';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let receiver: Receiver;
let fake: FakeTelegram;
let gw: TestGateway;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  [receiver, fake] = await Promise.all([startReceiver(SECRET), startFakeTelegram()]);
  env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [ALICE]: { identity: 'alice', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
      [BOB]: { identity: 'bob', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_API_ROOT: fake.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
  };
  gw = await startTestGateway(env);
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([receiver?.close(), fake?.close()]);
  await redis?.stop();
});

const as = (token: string): Api => api(gw.url, token);
const hook = () => ({ webhook: `${receiver.url}/hook` });
const deliveriesFor = (runId: string) => receiver.deliveries.filter((d) => d.body['run_id'] === runId);
const run = async (runId: string, token = ALICE) => (await as(token).get(`/api/runs/${runId}`)).json;

describe('kill paths', () => {
  it('DELETE of a parked ask kills its run and its parked parent, cancelling the parent’s other asks', async () => {
    const parent = await as(BOB).post('/api/runs', {
      run: { run_id: 'kill-parent', resume: hook() },
      asks: [{ question: 'Parent waits?', answer_format: 'text', expiry_at: inMs(3_600_000) }],
    });
    expect(parent.status).toBe(201);
    const parentAsk = (parent.json['interactions'] as Array<{ id: string }>)[0]?.id as string;
    const child = await as(ALICE).post('/api/interactions', {
      question: 'Child?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      run: { run_id: 'kill-child', parent_run_id: 'kill-parent', resume: hook() },
    });
    expect(child.status).toBe(201);
    const childAsk = child.json['id'] as string;
    expect((await as(ALICE).delete(`/api/interactions/${childAsk}`)).status).toBe(200);
    await until(
      async () =>
        (await run('kill-child'))['status'] === 'killed' && (await run('kill-parent', BOB))['status'] === 'killed',
      'the child and its parent to be killed',
    );
    await until(
      () => deliveriesFor('kill-child').length === 1 && deliveriesFor('kill-parent').length === 1,
      'both kill notices',
    );
    expect(deliveriesFor('kill-child')[0]?.body).toMatchObject({ type: 'run.killed', killed_by: childAsk });
    expect(deliveriesFor('kill-parent')[0]?.body).toMatchObject({ type: 'run.killed', killed_by: 'run:kill-child' });
    expect((await as(BOB).get(`/api/interactions/${parentAsk}`)).json['status']).toBe('cancelled');
    // The runs door shows each ask as it ended (docs/doors.md): the child's own ask cancelled by its DELETE, the
    // parent's other ask cancelled by the kill.
    expect((await run('kill-child'))['asks']).toEqual([
      { interaction_id: childAsk, status: 'cancelled', result: null },
    ]);
    expect((await run('kill-parent', BOB))['asks']).toEqual([
      { interaction_id: parentAsk, status: 'cancelled', result: null },
    ]);
    await holds(
      () => deliveriesFor('kill-child').length === 1 && deliveriesFor('kill-parent').length === 1,
      'one kill notice each',
    );
  });

  it('a killed run’s channel ask gets its outcome edit: the Telegram question loses its buttons', async () => {
    const chat = freshChat();
    const res = await as(ALICE).post('/api/runs', {
      run: { run_id: 'kill-channel', resume: hook() },
      asks: [
        { question: 'Inbox half?', answer_format: 'text', expiry_at: inMs(3_600_000) },
        {
          question: 'Telegram half?',
          answer_format: 'confirm',
          expiry_at: inMs(3_600_000),
          channel: 'telegram',
          recipient: chat,
        },
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const [inboxAsk, telegramAsk] = (res.json['interactions'] as Array<{ id: string }>).map((r) => r.id);
    const question = fake.messagesIn(chat)[0];
    expect(question?.reply_markup).not.toBeNull();
    expect((await as(ALICE).delete(`/api/interactions/${inboxAsk}`)).status).toBe(200);
    await until(() => (question?.history.length ?? 0) >= 2, 'the outcome edit of the Telegram question');
    expect(question?.text).toMatch(/Cancelled/i);
    expect(question?.reply_markup).toBeNull();
    expect((await as(ALICE).get(`/api/interactions/${telegramAsk}`)).json['status']).toBe('cancelled');
    await until(() => deliveriesFor('kill-channel').length === 1, 'the kill notice');
    expect(deliveriesFor('kill-channel')[0]?.body).toMatchObject({ type: 'run.killed', killed_by: inboxAsk });
  });

  it('a channel ask whose delivery fails while parking is a 502 for the asker and a kill of its run', async () => {
    const chat = freshChat();
    fake.forgetChat(chat);
    const res = await as(ALICE).post('/api/interactions', {
      question: 'Nobody there?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      channel: 'telegram',
      recipient: chat,
      run: { run_id: 'kill-undelivered', resume: hook() },
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: 'telegram' });
    await until(async () => (await run('kill-undelivered'))['status'] === 'killed', 'the undelivered run to be killed');
    await until(() => deliveriesFor('kill-undelivered').length === 1, 'the kill notice');
    expect(deliveriesFor('kill-undelivered')[0]?.body['type']).toBe('run.killed');
  });
});

describe('the recovery sweep', () => {
  it('re-enqueues a ready run whose resume job was lost between the claim and the enqueue, and resumes it once', async () => {
    const sweepEnv = { ...env, ASKGATE_REDIS_PREFIX: '{pks}:' };
    // A gateway without workers parks and answers, so nothing consumes the resume job its claim enqueued; the job is
    // then removed, as if the answering process had died between the claim and the enqueue.
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      // The resume webhook is this test's loopback receiver (the test gateways allow private targets too).
      ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
      ...sweepEnv,
    });
    const answering = await createGateway(config, { workers: false });
    const url = await answering.listen();
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('resume', { connection, prefix: '{pks}' });
    let sweeping: TestGateway | null = null;
    try {
      const http = api(url, ALICE);
      const parked = await http.post('/api/interactions', {
        question: 'Stranded?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        run: { run_id: 'stranded', resume: hook() },
      });
      expect(parked.status).toBe(201);
      expect((await http.post(`/api/interactions/${parked.json['id']}/answer`, { answer: true })).status).toBe(200);
      // Ready (the API shows a ready run as parked and resuming).
      expect((await http.get('/api/runs/stranded')).json).toMatchObject({
        status: 'parked',
        resuming: true,
        outstanding: 0,
      });
      const jobId = resumeJobId('stranded', 1);
      expect(await queue.getJobState(jobId)).toBe('waiting');
      expect(await queue.remove(jobId)).toBe(1);
      expect(await queue.getJob(jobId)).toBeUndefined();
      // Nothing will resume it now but a sweep: a process with workers finds it in the ready-runs index.
      sweeping = await startTestGateway(sweepEnv);
      await until(
        async () => (await http.get('/api/runs/stranded')).json['status'] === 'resumed',
        'the swept run to resume',
        30_000,
      );
      await holds(() => deliveriesFor('stranded').length === 1, 'one resume of the swept run');
      expect(deliveriesFor('stranded')[0]?.body).toMatchObject({ type: 'run.resumed', ask_result: { answer: true } });
    } finally {
      await sweeping?.close();
      await queue.close();
      connection.disconnect();
      await answering.close();
    }
  }, 60_000);
});
