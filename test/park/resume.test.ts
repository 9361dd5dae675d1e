import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  inMs,
  startReceiver,
  startRecorder,
  startSdkWorker,
  stopChild,
  holds,
  until,
  webhookSecret,
  type Receiver,
  type Recorder,
} from './helpers.js';

/**
 * Parks made through one `askgate serve`, answered through another, resumed by `askgate worker` processes or by
 * SDK continuation workers: all separate processes on one real redis-server.
 */

const TOKEN = 'park-resume-token-alice-0123456789';
const PREFIX = '{pr}:';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let a: GatewayProcess;
let b: GatewayProcess;
let workers: GatewayProcess[];
let receiver: Receiver;
let recorder: Recorder;
const children: ChildProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  [receiver, recorder] = await Promise.all([startReceiver(SECRET), startRecorder()]);
  env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
  };
  [a, b, ...workers] = await Promise.all([
    spawnGateway('serve', env),
    spawnGateway('serve', env),
    spawnGateway('worker', env),
    spawnGateway('worker', env),
  ]);
});

afterAll(async () => {
  await Promise.all(children.map((c) => stopChild(c, 'SIGKILL')));
  await Promise.all([a?.stop(), b?.stop(), ...(workers ?? []).map((w) => w.stop())]);
  await Promise.all([receiver?.close(), recorder?.close()]);
  await redis?.stop();
});

const onA = () => api(a.url as string, TOKEN);
const onB = () => api(b.url as string, TOKEN);
const deliveriesFor = (runId: string) => receiver.deliveries.filter((d) => d.body['run_id'] === runId);
const eventsFor = (runId: string, event: string) =>
  recorder.events.filter((e) => e.event === event && e.continuation['run_id'] === runId);

async function park(
  runId: string,
  resume: Record<string, string>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await onA().post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume, state: { step: 3 } },
    ...extra,
  });
  expect(res.status).toBe(201);
  expect(res.json['suspended']).toBe(true);
  return res.json['id'] as string;
}

describe('an async park resumes exactly once', () => {
  it('parks through one gateway, is answered on another, and is resumed by a worker with a signed, retried webhook', async () => {
    const id = await park('run-webhook', { webhook: `${receiver.url}/fail-first/hook` });
    expect((await onB().get('/api/runs/run-webhook')).json).toMatchObject({
      status: 'parked',
      identity: 'alice',
      outstanding: 1,
    });
    expect((await onB().post(`/api/interactions/${id}/answer`, { answer: true })).json['status']).toBe('answered');
    await until(
      async () => (await onA().get('/api/runs/run-webhook')).json['status'] === 'resumed',
      'the run to resume',
    );
    await holds(() => deliveriesFor('run-webhook').length === 1, 'one delivery of run-webhook');
    const [delivery] = deliveriesFor('run-webhook');
    expect(delivery?.body).toMatchObject({
      type: 'run.resumed',
      run_id: 'run-webhook',
      identity: 'alice',
      interaction_id: id,
      ask_result: { answer: true, reply_to: null, params: null },
      state: { step: 3 },
    });
    // The first attempt was refused with 500 and retried under the same webhook-id.
    expect(receiver.refused).toContain(delivery?.id);
    expect(receiver.unverified).toBe(0);
    expect((await onA().get('/api/runs/run-webhook')).json['resume_attempts']).toBe(2);
  });

  it('gives one resume for 100 concurrent duplicate answers spread over two gateways', async () => {
    const id = await park('run-dupes', { webhook: `${receiver.url}/hook` });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? onA() : onB()).post(`/api/interactions/${id}/answer`, { answer: i % 3 === 0 }),
      ),
    );
    const statuses = answers.map((r) => r.json['status']);
    expect(statuses.filter((s) => s === 'answered')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_answered')).toHaveLength(99);
    await until(async () => (await onB().get('/api/runs/run-dupes')).json['status'] === 'resumed', 'the run to resume');
    await holds(() => deliveriesFor('run-dupes').length === 1, 'one delivery of run-dupes');
    expect((await onB().get('/api/runs/run-dupes')).json['resume_attempts']).toBe(1);
  });

  it('resumes a handler continuation registered through the SDK in another process', async () => {
    const worker = await startSdkWorker(
      { gatewayUrl: a.url as string, token: TOKEN, recorderUrl: recorder.url },
      children,
    );
    const id = await park('run-handler', { handler: 'note' });
    await onB().post(`/api/interactions/${id}/answer`, { answer: false });
    await until(
      async () => (await onA().get('/api/runs/run-handler')).json['status'] === 'resumed',
      'the handler run to resume',
    );
    await holds(() => eventsFor('run-handler', 'completed').length === 1, 'one completed continuation of run-handler');
    expect(eventsFor('run-handler', 'completed')[0]?.continuation).toMatchObject({
      type: 'run.resumed',
      identity: 'alice',
      interaction_id: id,
      ask_result: { answer: false },
      state: { step: 3 },
      attempt: 1,
    });
    await stopChild(worker);
  });

  it('reruns a continuation once, on another worker, when its worker is SIGKILLed mid-continuation', async () => {
    const doomed = await startSdkWorker(
      { gatewayUrl: a.url as string, token: TOKEN, recorderUrl: recorder.url, env: { HANG: '1', LOCK_MS: '1500' } },
      children,
    );
    const id = await park('run-sigkill', { handler: 'note' });
    await onB().post(`/api/interactions/${id}/answer`, { answer: true });
    await until(() => eventsFor('run-sigkill', 'started').length === 1, 'the doomed worker to start the continuation');
    const survivor = await startSdkWorker(
      { gatewayUrl: a.url as string, token: TOKEN, recorderUrl: recorder.url, env: { LOCK_MS: '1500' } },
      children,
    );
    await stopChild(doomed, 'SIGKILL');
    await until(
      async () => (await onA().get('/api/runs/run-sigkill')).json['status'] === 'resumed',
      'the rerun to complete',
    );
    const started = eventsFor('run-sigkill', 'started');
    const completed = eventsFor('run-sigkill', 'completed');
    expect(started.map((e) => e.pid)).toEqual([doomed.pid, survivor.pid]);
    await holds(() => eventsFor('run-sigkill', 'completed').length === 1, 'one completed rerun of run-sigkill');
    expect(completed[0]?.pid).toBe(survivor.pid);
    expect(completed[0]?.continuation['resume_id']).toBe(started[0]?.continuation['resume_id']);
    await stopChild(survivor);
  });

  it('parks a fan-out of three asks and resumes it once with three results, whatever the arrival order', async () => {
    const res = await onA().post('/api/runs', {
      run: { run_id: 'run-fanout', resume: { webhook: `${receiver.url}/hook` }, state: { fan: true } },
      asks: [
        { question: 'Region?', answer_format: 'select', choices: ['eu', 'us'], expiry_at: inMs(3_600_000) },
        { question: 'Name?', answer_format: 'text', expiry_at: inMs(3_600_000) },
        { question: 'Go?', answer_format: 'confirm', expiry_at: inMs(3_600_000) },
      ],
    });
    expect(res.status).toBe(201);
    const ids = (res.json['interactions'] as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toHaveLength(3);
    const answers: Record<string, unknown> = {
      [ids[0] as string]: 'us',
      [ids[1] as string]: 'nightly',
      [ids[2] as string]: true,
    };
    // Last ask first, on alternating gateways; the run stays parked until the last one.
    await onB().post(`/api/interactions/${ids[2]}/answer`, { answer: true });
    await onA().post(`/api/interactions/${ids[0]}/answer`, { answer: 'us' });
    expect((await onA().get('/api/runs/run-fanout')).json).toMatchObject({ status: 'parked', outstanding: 1 });
    await onB().post(`/api/interactions/${ids[1]}/answer`, { answer: 'nightly' });
    await until(
      async () => (await onA().get('/api/runs/run-fanout')).json['status'] === 'resumed',
      'the fan-out to resume',
    );
    await holds(() => deliveriesFor('run-fanout').length === 1, 'one delivery of run-fanout');
    const results = deliveriesFor('run-fanout')[0]?.body['results'] as Record<string, { answer: unknown }>;
    expect(Object.keys(results).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(results[id]?.answer).toEqual(answers[id]);
  });

  it('writes nothing when any ask of a fan-out is refused', async () => {
    const res = await onA().post('/api/runs', {
      run: { run_id: 'run-refused', resume: { webhook: `${receiver.url}/hook` } },
      asks: [
        { question: 'Fine?', answer_format: 'confirm', expiry_at: inMs(3_600_000) },
        { question: 'Broken?', answer_format: 'select', expiry_at: inMs(3_600_000) },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json['field']).toBe('asks[1].choices');
    expect((await onA().get('/api/runs/run-refused')).status).toBe(404);
    const pending = (await onA().get('/api/interactions?limit=200')).json['items'] as Array<{ question: string }>;
    expect(pending.some((r) => r.question === 'Fine?')).toBe(false);
  });
});
