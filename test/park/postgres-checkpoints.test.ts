import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';
import { api, type Api } from '../helpers/http.js';
import { startPostgresServer, type PostgresServerHandle } from '../helpers/postgres-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { holds, inMs, startReceiver, until, webhookSecret, type Receiver } from './helpers.js';

/**
 * Parks with their checkpoints in PostgreSQL (ASKGATE_CHECKPOINT_URL), through a whole gateway on a real
 * redis-server and a real PostgreSQL: the checkpoint is written there before the park, the state never reaches
 * Redis, a resume gets it back, and PostgreSQL going away refuses parks cleanly and delays resumes without losing one.
 */

const TOKEN = 'pg-checkpoint-token-alice-0123456789';
const PREFIX = '{pgc}:';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let postgres: PostgresServerHandle;
let raw: Redis;
let sql: pg.Pool;
let receiver: Receiver;
const gateways: Gateway[] = [];
let env: Record<string, string>;
let gw: Api;

let gwUrl: string;

async function startGateway(extra: Record<string, string | undefined> = {}): Promise<{ on: Api; url: string }> {
  const merged: Record<string, string | undefined> = { ...env, ...extra, PORT: '0' };
  const config = loadConfig(merged);
  const gateway = await createGateway(config, { logger: createLogger('silent') });
  gateways.push(gateway);
  const url = await gateway.listen();
  return { on: api(url, TOKEN), url };
}

beforeAll(async () => {
  [redis, postgres, receiver] = await Promise.all([
    startRedisServer({ own: true }),
    startPostgresServer(),
    startReceiver(SECRET),
  ]);
  raw = new Redis(redis.url);
  sql = new pg.Pool({ connectionString: postgres.url, max: 2 });
  sql.on('error', () => {});
  env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
    ASKGATE_CHECKPOINT_URL: postgres.url,
    ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS: '2000',
  };
  ({ on: gw, url: gwUrl } = await startGateway());
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  raw?.disconnect();
  await sql?.end();
  await receiver?.close();
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

const deliveriesFor = (runId: string) => receiver.deliveries.filter((d) => d.body['run_id'] === runId);

function parkBody(runId: string, state: unknown): Record<string, unknown> {
  return {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume: { webhook: `${receiver.url}/hook` }, state },
  };
}

async function park(on: Api, runId: string, state: unknown): Promise<string> {
  const res = await on.post('/api/interactions', parkBody(runId, state));
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json['id'] as string;
}

/** Every key in Redis with its MEMORY USAGE, summed. */
async function redisBytes(): Promise<number> {
  let total = 0;
  for (const key of await raw.keys('*')) total += Number((await raw.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  return total;
}

describe('checkpoints in PostgreSQL', () => {
  it('keeps the checkpoint in PostgreSQL and a reference in Redis, and resumes once with the state', async () => {
    const state = { z: 1, plan: ['build', 'test', 'ship'], note: 'Grüße 🚀', nested: { a: null } };
    const id = await park(gw, 'run-pg', state);
    const parked = (await gw.get('/api/runs/run-pg')).json;
    expect(parked).toMatchObject({ status: 'parked', checkpoint: 'postgres', state });
    const rows = await sql.query(`SELECT owner, kind, convert_from(state, 'UTF8') AS state FROM askgate.checkpoints
                                  WHERE run_id = 'run-pg'`);
    expect(rows.rows).toEqual([{ owner: 'alice', kind: 'tool', state: JSON.stringify(state) }]);
    const hash = await raw.hgetall(`${PREFIX}r:run-pg`);
    expect(hash['st']).toMatch(/^@[A-Za-z0-9_-]{16}$/);
    expect((await gw.post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    await until(async () => (await gw.get('/api/runs/run-pg')).json['status'] === 'resumed', 'run-pg to resume');
    await holds(() => deliveriesFor('run-pg').length === 1, 'one delivery of run-pg', 500);
    expect(deliveriesFor('run-pg')[0]?.body).toMatchObject({ type: 'run.resumed', run_id: 'run-pg', state });
  });

  it('hands a handler job a reference, never the state; the claim fills the state in', async () => {
    const state = { marker: 'state-only-in-postgres', list: [1, 2, 3] };
    const res = await gw.post('/api/interactions', {
      ...parkBody('run-handler-pg', state),
      run: { run_id: 'run-handler-pg', resume: { handler: 'pgnote' }, state },
    });
    expect(res.status).toBe(201);
    await gw.post(`/api/interactions/${res.json['id'] as string}/answer`, { answer: true });
    const jobId = `resume-${Buffer.from('run-handler-pg').toString('base64url')}-1`;
    await until(async () => (await raw.keys(`*${jobId}`)).length > 0, 'the handler job');
    const [jobKey] = await raw.keys(`*${jobId}`);
    const data = JSON.parse((await raw.hget(jobKey as string, 'data')) as string) as Record<string, unknown>;
    expect(data).toMatchObject({ run_id: 'run-handler-pg', state: null, checkpoint_ref: expect.any(String) });
    for (const key of await raw.keys('*')) {
      const type = await raw.type(key);
      const dump =
        type === 'hash' ? JSON.stringify(await raw.hgetall(key)) : type === 'string' ? await raw.get(key) : '';
      expect(dump, key).not.toContain('state-only-in-postgres');
    }
    const claimed = await gw.post('/api/continuations/claim', { handlers: ['pgnote'], wait: 5 });
    expect(claimed.status).toBe(200);
    expect(claimed.json['continuation']).toMatchObject({ type: 'run.resumed', run_id: 'run-handler-pg', state });
    expect(claimed.json['continuation']).not.toHaveProperty('checkpoint_ref');
    const done = await gw.post(`/api/continuations/${claimed.json['resume_id'] as string}/complete`, {
      lease_id: claimed.json['lease_id'],
      output: null,
    });
    expect(done.status).toBe(200);
    await until(async () => (await gw.get('/api/runs/run-handler-pg')).json['status'] === 'resumed', 'resumed');
  });

  it('reads a handler-resumed checkpoint once: at the claim, not at the answer', async () => {
    const reads = async (): Promise<number> => {
      const metrics = await (await fetch(`${gwUrl}/metrics`)).text();
      // No line until the first read.
      return Number(/^askgate_checkpoint_seconds_count\{op="read"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    };
    const res = await gw.post('/api/interactions', {
      ...parkBody('run-read-once', { n: 1 }),
      run: { run_id: 'run-read-once', resume: { handler: 'readonce' }, state: { n: 1 } },
    });
    expect(res.status).toBe(201);
    const before = await reads();
    await gw.post(`/api/interactions/${res.json['id'] as string}/answer`, { answer: true });
    const jobId = `resume-${Buffer.from('run-read-once').toString('base64url')}-1`;
    await until(async () => (await raw.keys(`*${jobId}`)).length > 0, 'the handler job');
    expect(await reads()).toBe(before);
    const claimed = await gw.post('/api/continuations/claim', { handlers: ['readonce'], wait: 5 });
    expect(claimed.json['continuation']).toMatchObject({ run_id: 'run-read-once', state: { n: 1 } });
    expect(await reads()).toBe(before + 1);
    await gw.post(`/api/continuations/${claimed.json['resume_id'] as string}/complete`, {
      lease_id: claimed.json['lease_id'],
      output: null,
    });
  });

  it('costs Redis the same for a 900 KiB state as for an empty one (within 200 bytes)', async () => {
    const before = await redisBytes();
    await park(gw, 'run-empty', null);
    const afterEmpty = await redisBytes();
    await park(gw, 'run-large', { blob: 'x'.repeat(900 * 1024) });
    const afterLarge = await redisBytes();
    const empty = afterEmpty - before;
    const large = afterLarge - afterEmpty;
    expect(Math.abs(large - empty), `empty park ${empty} bytes, 900 KiB park ${large} bytes`).toBeLessThanOrEqual(200);
    expect(((await gw.get('/api/runs/run-large')).json['state'] as { blob: string }).blob).toHaveLength(900 * 1024);
  });

  it("a run's next park drops the checkpoint of the park before it", async () => {
    const first = await park(gw, 'run-pg-twice', { step: 1 });
    expect((await gw.post(`/api/interactions/${first}/answer`, { answer: true })).status).toBe(200);
    await until(async () => (await gw.get('/api/runs/run-pg-twice')).json['status'] === 'resumed', 'the first park');
    await park(gw, 'run-pg-twice', { step: 2 });
    const states = async () =>
      (
        await sql.query(`SELECT convert_from(state, 'UTF8') AS state FROM askgate.checkpoints
                         WHERE run_id = 'run-pg-twice' AND kind IS NOT NULL`)
      ).rows.map((r) => r['state'] as string);
    await until(async () => (await states()).length === 1, 'the first park to be dropped');
    expect(await states()).toEqual([JSON.stringify({ step: 2 })]);
  });

  it('leaves the parked run its checkpoint when a second park of it is refused', async () => {
    const id = await park(gw, 'run-twice', { step: 'first' });
    const again = await gw.post('/api/interactions', parkBody('run-twice', { step: 'second' }));
    expect(again.status).toBe(409);
    const rows = await sql.query(`SELECT convert_from(state, 'UTF8') AS state FROM askgate.checkpoints
                                  WHERE run_id = 'run-twice'`);
    expect(rows.rows).toEqual([{ state: '{"step":"first"}' }]);
    await gw.post(`/api/interactions/${id}/answer`, { answer: false });
    await until(() => deliveriesFor('run-twice').length === 1, 'run-twice to resume');
    expect(deliveriesFor('run-twice')[0]?.body['state']).toEqual({ step: 'first' });
  });

  it('counts checkpoint reads and writes in /metrics, and says where checkpoints are in /readyz', async () => {
    const metrics = await (await fetch(`${gwUrl}/metrics`)).text();
    expect(metrics).toMatch(/^askgate_checkpoint_seconds_count\{op="write"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^askgate_checkpoint_seconds_count\{op="read"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^askgate_checkpoints_swept_total 0$/m);
    const ready = await fetch(`${gwUrl}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', store: 'redis', checkpoint: 'postgres' },
    ]);
  });

  it('refuses a park with 503 and Retry-After while PostgreSQL is down, keeping nothing; /readyz is 503 meanwhile', async () => {
    const listed = async (): Promise<number> =>
      ((await gw.get('/api/interactions?status=pending&limit=100')).json['items'] as unknown[]).length;
    const pendingBefore = await listed();
    const keysBefore = (await raw.keys('*')).sort();
    await postgres.down();
    try {
      const refused = await gw.post('/api/interactions', parkBody('run-while-down', { step: 1 }));
      expect(refused.status).toBe(503);
      expect(refused.json['error']).toBe('store_unavailable');
      expect(refused.headers.get('retry-after')).toBe('2');
      const ready = await fetch(`${gwUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('2');
      expect(await ready.json()).toMatchObject({ error: 'store_unavailable', checkpoint: 'postgres' });
      expect(await listed()).toBe(pendingBefore);
      expect((await raw.keys('*')).sort()).toEqual(keysBefore);
      expect((await gw.get('/api/runs/run-while-down')).status).toBe(404);
    } finally {
      await postgres.up();
    }
    expect((await fetch(`${gwUrl}/readyz`)).status).toBe(200);
    expect((await sql.query(`SELECT 1 FROM askgate.checkpoints WHERE run_id = 'run-while-down'`)).rowCount).toBe(0);
  });

  it('keeps a run answered while PostgreSQL is down due, and resumes it once when it is back', async () => {
    const id = await park(gw, 'run-answered-down', { step: 'waiting' });
    await postgres.down();
    try {
      expect((await gw.post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
      // The resume job fails while the checkpoint cannot be read; the run stays due (ready) in Redis.
      await holds(() => deliveriesFor('run-answered-down').length === 0, 'no delivery while PostgreSQL is down', 800);
      expect(await raw.hget(`${PREFIX}r:run-answered-down`, 's')).toBe('ready');
    } finally {
      await postgres.up();
    }
    await until(() => deliveriesFor('run-answered-down').length === 1, 'run-answered-down to resume');
    await holds(() => deliveriesFor('run-answered-down').length === 1, 'one delivery of run-answered-down', 1_000);
    expect(deliveriesFor('run-answered-down')[0]?.body['state']).toEqual({ step: 'waiting' });
  });

  it('resumes runs parked in Redis before the switch from Redis, and says so', async () => {
    const before = await startGateway({
      ASKGATE_CHECKPOINT_URL: undefined,
      ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS: undefined,
    });
    const id = await park(before.on, 'run-before-switch', { step: 'from redis' });
    expect((await before.on.get('/api/runs/run-before-switch')).json['checkpoint']).toBe('redis');
    expect((await gw.get('/api/runs/run-before-switch')).json).toMatchObject({
      checkpoint: 'redis',
      state: { step: 'from redis' },
    });
    await gw.post(`/api/interactions/${id}/answer`, { answer: true });
    await until(() => deliveriesFor('run-before-switch').length === 1, 'run-before-switch to resume');
    expect(deliveriesFor('run-before-switch')[0]?.body['state']).toEqual({ step: 'from redis' });
    // And the other way: a gateway without ASKGATE_CHECKPOINT_URL refuses to read a run parked in PostgreSQL.
    await park(gw, 'run-after-switch', { step: 'in postgres' });
    const blind = await before.on.get('/api/runs/run-after-switch');
    expect(blind.status).toBe(503);
    expect(blind.json['message']).toMatch(/ASKGATE_CHECKPOINT_URL is unset/);
  });
});
