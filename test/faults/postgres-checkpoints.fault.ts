import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, type PostgresServerHandle } from '../helpers/postgres-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  client,
  faultIdentity,
  figure,
  inMs,
  spawnGateway,
  startFaultReceiver,
  until,
  type FaultReceiver,
  type GatewayProcess,
} from './helpers.js';

/**
 * PostgreSQL, holding the checkpoints (ASKGATE_CHECKPOINT_URL), SIGKILLed with its backends and restarted while
 * parks and answers go through an `askgate serve` and two `askgate worker` processes. A park refused meanwhile is
 * 503 with Retry-After and retried by the client, as a client should; afterwards every accepted park resumed exactly
 * once with its own state, and no resume was delivered twice.
 */

const who = faultIdentity('pgcrash');
const PREFIX = '{fp}:';
const RUNS = 40;
let redis: RedisServerHandle;
let postgres: PostgresServerHandle;
let receiver: FaultReceiver;
let processes: GatewayProcess[] = [];

beforeAll(async () => {
  [redis, postgres, receiver] = await Promise.all([
    startRedisServer({ own: true }),
    startPostgresServer(),
    startFaultReceiver(who.secret),
  ]);
  const env = who.env(redis.url, PREFIX, { ASKGATE_CHECKPOINT_URL: postgres.url });
  processes = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env), spawnGateway('worker', env)]);
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await receiver?.close();
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

describe('PostgreSQL killed under parks and answers', () => {
  it('loses no park and resumes none twice', async () => {
    const gw = client(processes[0] as GatewayProcess, who.token);
    let refusals = 0;
    /** Parks run i, retrying a 503 after its Retry-After, as a client should; the id of its ask. */
    const park = async (i: number): Promise<string> => {
      for (;;) {
        const res = await gw.post('/api/interactions', {
          question: `Run ${i}?`,
          answer_format: 'confirm',
          mode: 'async',
          expiry_at: inMs(3_600_000),
          run: { run_id: `pg-run-${i}`, resume: { webhook: `${receiver.url}/ok/${i}` }, state: { run: i } },
        });
        if (res.status === 201) return res.json['id'] as string;
        expect(res.status, JSON.stringify(res.json)).toBe(503);
        expect(res.headers.get('retry-after')).toBe('2');
        refusals += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const answerAll = async (ids: string[]): Promise<void> => {
      for (const id of ids) {
        const res = await gw.post(`/api/interactions/${id}/answer`, { answer: true });
        expect(res.status, JSON.stringify(res.json)).toBe(200);
      }
    };
    const first = await Promise.all(Array.from({ length: RUNS / 2 }, (_, i) => park(i)));
    // The crash lands while the second half parks and the first half is answered (and resumes read checkpoints).
    const crash = postgres.restart({ crash: true, downMs: 1_500 });
    const [second] = await Promise.all([
      Promise.all(Array.from({ length: RUNS / 2 }, (_, i) => park(RUNS / 2 + i))),
      answerAll(first),
      crash,
    ]);
    await answerAll(second);
    await until(
      () => Array.from({ length: RUNS }, (_, i) => receiver.completed(`pg-run-${i}`).length).every((n) => n >= 1),
      'every run to resume',
      90_000,
    );
    // A late duplicate would come within a retry or two of the resume job's backoff (200 ms, doubling).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const delivered = Array.from({ length: RUNS }, (_, i) => receiver.completed(`pg-run-${i}`).length);
    figure('postgres SIGKILL under parks and answers', {
      runs: RUNS,
      'parks refused (503) and retried': refusals,
      lost: delivered.filter((n) => n === 0).length,
      'delivered twice': delivered.filter((n) => n > 1).length,
    });
    expect(delivered).toEqual(Array.from({ length: RUNS }, () => 1));
    expect(receiver.unverified).toBe(0);
  });

  it('refuses a park while PostgreSQL is down with 503 and keeps nothing of it; /readyz is 503 meanwhile', async () => {
    const gw = client(processes[0] as GatewayProcess, who.token);
    const pending = async (): Promise<number> =>
      ((await gw.get('/api/interactions?status=pending&limit=100')).json['items'] as unknown[]).length;
    const before = await pending();
    await postgres.down({ crash: true });
    try {
      const res = await gw.post('/api/interactions', {
        question: 'Down?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        run: { run_id: 'pg-down-park', resume: { webhook: `${receiver.url}/ok/down` }, state: { down: true } },
      });
      expect([res.status, res.json['error'], res.headers.get('retry-after')]).toEqual([503, 'store_unavailable', '2']);
      const ready = await fetch(`${(processes[0] as GatewayProcess).url as string}/readyz`);
      expect(ready.status).toBe(503);
      expect(await pending()).toBe(before);
      expect((await gw.get('/api/runs/pg-down-park')).status).toBe(404);
    } finally {
      await postgres.up();
    }
    expect((await gw.get('/api/runs/pg-down-park')).status).toBe(404);
  });

  it('resumes, once, a run answered while PostgreSQL is down, after it is back', async () => {
    const gw = client(processes[0] as GatewayProcess, who.token);
    const res = await gw.post('/api/interactions', {
      question: 'Later?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      run: { run_id: 'pg-answered-down', resume: { webhook: `${receiver.url}/ok/later` }, state: { later: true } },
    });
    expect(res.status).toBe(201);
    await postgres.down({ crash: true });
    try {
      expect((await gw.post(`/api/interactions/${res.json['id'] as string}/answer`, { answer: true })).status).toBe(
        200,
      );
      // Long enough for several resume attempts (200 ms backoff, doubling) to fail on the missing checkpoint.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(receiver.completed('pg-answered-down')).toHaveLength(0);
    } finally {
      await postgres.up();
    }
    await until(() => receiver.completed('pg-answered-down').length === 1, 'the run to resume', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.completed('pg-answered-down')).toHaveLength(1);
    figure('postgres down at answer', { resumed: receiver.completed('pg-answered-down').length });
  });
});
