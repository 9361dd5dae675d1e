import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startReceiver, until, webhookSecret, type Receiver } from './helpers.js';

/** Expiry policies, the kill chain, asks to the caller and the refusals of a park, across real processes. */

const ALICE = 'park-expiry-token-alice-0123456789';
const BOB = 'park-expiry-token-bob-00123456789';
const NOSECRET = 'park-expiry-token-carol-0123456789';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let serve: GatewayProcess;
let worker: GatewayProcess;
let memory: GatewayProcess;
let receiver: Receiver;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  receiver = await startReceiver(SECRET);
  const tokens = JSON.stringify({
    [ALICE]: { identity: 'alice', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    [BOB]: { identity: 'bob', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    [NOSECRET]: { identity: 'carol', scopes: ['read', 'write', 'answer'] },
  });
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{pe}:',
    ASKGATE_TOKENS: tokens,
    ASKGATE_RESUME_BACKOFF_MS: '100',
  };
  [serve, worker, memory] = await Promise.all([
    spawnGateway('serve', env),
    spawnGateway('worker', env),
    spawnGateway('all', { ASKGATE_TOKENS: tokens }),
  ]);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop(), memory?.stop()]);
  await receiver?.close();
  await redis?.stop();
});

const as = (token: string) => api(serve.url as string, token);
const hook = () => ({ webhook: `${receiver.url}/hook` });
const deliveriesFor = (runId: string) => receiver.deliveries.filter((d) => d.body['run_id'] === runId);
const runStatus = async (runId: string, token = ALICE) => (await as(token).get(`/api/runs/${runId}`)).json['status'];

describe('expiry', () => {
  it('resumes an on_expiry "resume" park with the expired marker', async () => {
    const res = await as(ALICE).post('/api/interactions', {
      question: 'Approve?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(1000),
      on_expiry: 'resume',
      run: { run_id: 'run-expire-resume', resume: hook() },
    });
    expect(res.status).toBe(201);
    await until(async () => (await runStatus('run-expire-resume')) === 'resumed', 'the expired run to resume');
    expect(deliveriesFor('run-expire-resume')).toHaveLength(1);
    expect(deliveriesFor('run-expire-resume')[0]?.body).toMatchObject({
      type: 'run.resumed',
      interaction_id: res.json['id'],
      ask_result: { answer: { $interaction: 'expired' }, reply_to: null, params: null },
    });
  });

  it('kills the run chain on an on_expiry "kill" lapse: the run, its parked parent, and the parent\'s other asks', async () => {
    const parent = await as(BOB).post('/api/runs', {
      run: { run_id: 'run-parent', resume: hook() },
      asks: [
        { question: 'Parent one?', answer_format: 'text', expiry_at: inMs(3_600_000) },
        { question: 'Parent two?', answer_format: 'text', expiry_at: inMs(3_600_000) },
      ],
    });
    expect(parent.status).toBe(201);
    const parentAsks = (parent.json['interactions'] as Array<{ id: string }>).map((r) => r.id);
    const child = await as(ALICE).post('/api/interactions', {
      question: 'Child?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(1000),
      run: { run_id: 'run-child', parent_run_id: 'run-parent', resume: hook() },
    });
    expect(child.status).toBe(201);
    await until(
      async () => deliveriesFor('run-parent').length === 1 && deliveriesFor('run-child').length === 1,
      'both kill notices',
    );
    expect(deliveriesFor('run-child')[0]?.body).toMatchObject({ type: 'run.killed', killed_by: child.json['id'] });
    expect(deliveriesFor('run-parent')[0]?.body).toMatchObject({ type: 'run.killed', killed_by: 'run:run-child' });
    expect(await runStatus('run-child')).toBe('killed');
    expect(await runStatus('run-parent', BOB)).toBe('killed');
    expect((await as(ALICE).get(`/api/interactions/${child.json['id']}`)).json['status']).toBe('expired');
    for (const id of parentAsks)
      expect((await as(BOB).get(`/api/interactions/${id}`)).json['status']).toBe('cancelled');
  });

  it('tears a whole fan-out down when one of its kill asks lapses, without resuming it part-way', async () => {
    const res = await as(ALICE).post('/api/runs', {
      run: { run_id: 'run-fan-kill', resume: hook() },
      asks: [
        { question: 'Answered?', answer_format: 'confirm', expiry_at: inMs(3_600_000) },
        { question: 'Lapses?', answer_format: 'confirm', expiry_at: inMs(1000) },
        { question: 'Cancelled?', answer_format: 'confirm', expiry_at: inMs(3_600_000) },
      ],
    });
    const [first, lapsing, third] = (res.json['interactions'] as Array<{ id: string }>).map((r) => r.id);
    await as(ALICE).post(`/api/interactions/${first}/answer`, { answer: true });
    await until(
      async () => (await runStatus('run-fan-kill')) === 'killed' && deliveriesFor('run-fan-kill').length === 1,
      'the fan-out kill',
    );
    expect(deliveriesFor('run-fan-kill').map((d) => d.body['type'])).toEqual(['run.killed']);
    expect(deliveriesFor('run-fan-kill')[0]?.body['killed_by']).toBe(lapsing);
    await until(
      async () => (await as(ALICE).get(`/api/interactions/${third}`)).json['status'] === 'cancelled',
      'the sibling to be cancelled',
    );
  });
});

describe('asking the caller', () => {
  it("parks the asking run, lets only the parent run's identity answer, and resumes the child", async () => {
    const parent = await as(BOB).post('/api/interactions', {
      question: 'Outer?',
      answer_format: 'text',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      run: { run_id: 'run-boss', resume: hook() },
    });
    expect(parent.status).toBe(201);
    const ask = await as(ALICE).post('/api/interactions', {
      question: 'Which table?',
      answer_format: 'text',
      to: 'caller',
      payload: { tables: ['a', 'b'] },
      expiry_at: inMs(3_600_000),
      run: { run_id: 'run-tool', parent_run_id: 'run-boss', resume: hook() },
    });
    expect(ask.status).toBe(201);
    expect(ask.json).toMatchObject({
      to: 'caller',
      mode: 'async',
      suspended: true,
      payload: { tables: ['a', 'b'] },
      channel: null,
    });
    const id = ask.json['id'] as string;
    // No inbox: the pending list does not show it; the parent finds it on the child run.
    const pending = (await as(BOB).get('/api/interactions?limit=200')).json['items'] as Array<{ id: string }>;
    expect(pending.some((r) => r.id === id)).toBe(false);
    expect((await as(BOB).get('/api/runs/run-tool')).json['asks']).toEqual([
      { interaction_id: id, status: 'pending', result: null },
    ]);
    const wrong = await as(ALICE).post(`/api/interactions/${id}/answer`, { answer: 'a' });
    expect(wrong.status).toBe(403);
    expect((await as(BOB).post(`/api/interactions/${id}/answer`, { answer: 'b' })).json['status']).toBe('answered');
    await until(async () => (await runStatus('run-tool')) === 'resumed', 'the child run to resume');
    expect(deliveriesFor('run-tool')[0]?.body).toMatchObject({ type: 'run.resumed', ask_result: { answer: 'b' } });
    expect(await runStatus('run-boss', BOB)).toBe('parked');
  });

  it('refuses a caller ask whose parent run askgate does not know', async () => {
    const res = await as(ALICE).post('/api/interactions', {
      question: 'Hello?',
      answer_format: 'text',
      to: 'caller',
      expiry_at: inMs(60_000),
      run: { run_id: 'run-orphan', parent_run_id: 'nobody', resume: hook() },
    });
    expect(res.status).toBe(400);
    expect(res.json['field']).toBe('run.parent_run_id');
  });
});

describe('refusals of a park', () => {
  const day = 86_400_000;
  it('refuses a deadline past the retention horizon, and an agent deadline inside the idle-TTL margin', async () => {
    const body = (runId: string, kind: string, ms: number) => ({
      question: 'Later?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(ms),
      run: { run_id: runId, kind, resume: hook() },
    });
    const tool = await as(ALICE).post('/api/interactions', body('run-r1', 'tool', 7 * day + 60_000));
    expect(tool.status).toBe(400);
    expect(tool.json['field']).toBe('expiry_at');
    expect(tool.json['message']).toMatch(/retention/);
    const agent = await as(ALICE).post('/api/interactions', body('run-r2', 'agent', 6.5 * day));
    expect(agent.status).toBe(400);
    expect(agent.json['message']).toMatch(/INTERACTIONS_IDLE_TTL_SECONDS/);
    expect((await as(ALICE).post('/api/interactions', body('run-r3', 'agent', 5.9 * day))).status).toBe(201);
    expect((await as(ALICE).get('/api/runs/run-r1')).status).toBe(404);
    expect((await as(ALICE).get('/api/runs/run-r2')).status).toBe(404);
  });

  it('refuses a webhook resume for an identity without a webhook_secret', async () => {
    const res = await as(NOSECRET).post('/api/interactions', {
      question: 'Signed?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(60_000),
      run: { run_id: 'run-unsigned', resume: hook() },
    });
    expect(res.status).toBe(400);
    expect(res.json['field']).toBe('run.resume.webhook');
    expect(res.json['message']).toMatch(/ASKGATE_TOKENS/);
  });

  it('refuses a park on the in-memory store with 409 before writing anything', async () => {
    const mem = api(memory.url as string, ALICE);
    const single = await mem.post('/api/interactions', {
      question: 'Park?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(60_000),
      run: { run_id: 'run-mem', resume: hook() },
    });
    expect(single.status).toBe(409);
    expect(single.json['message']).toMatch(/in-memory store/);
    const fan = await mem.post('/api/runs', {
      run: { run_id: 'run-mem', resume: hook() },
      asks: [{ question: 'Park?', answer_format: 'confirm', expiry_at: inMs(60_000) }],
    });
    expect(fan.status).toBe(409);
    expect((await mem.get('/api/interactions')).json['items']).toEqual([]);
  });
});
