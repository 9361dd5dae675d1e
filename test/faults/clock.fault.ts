import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * The clock: parks whose deadlines pass while no worker runs (only `askgate serve`, which does not sweep) are
 * expired — resumed or killed, as each asked — exactly once when workers come back, even two at the same moment.
 */

const who = faultIdentity('clock');
const PARKS = 10;
let redis: RedisServerHandle;
let serve: GatewayProcess;
const workers: GatewayProcess[] = [];
let receiver: FaultReceiver;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  receiver = await startFaultReceiver(who.secret);
  env = who.env(redis.url, '{fc}:');
  serve = await spawnGateway('serve', env);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), ...workers.map((w) => w.stop())]);
  await receiver?.close();
  await redis?.stop();
});

describe('deadlines that pass while every worker is down', () => {
  it('are expired once each when two workers come back at the same moment', async () => {
    const asks = client(serve, who.token);
    const runs: Array<{ runId: string; id: string; policy: 'resume' | 'kill' }> = [];
    for (let i = 0; i < PARKS; i += 1) {
      const policy = i % 2 === 0 ? 'resume' : 'kill';
      const runId = `run-clock-${i}`;
      const res = await asks.post('/api/interactions', {
        question: `Still there ${i}?`,
        answer_format: 'text',
        mode: 'async',
        expiry_at: inMs(1_000),
        on_expiry: policy,
        run: { run_id: runId, resume: { webhook: `${receiver.url}/hook` } },
      });
      expect(res.status).toBe(201);
      runs.push({ runId, id: res.json['id'] as string, policy });
    }
    // Well past every deadline, with nothing sweeping: every park is still parked, its ask still pending.
    await new Promise((r) => setTimeout(r, 2_500));
    for (const run of runs) {
      expect((await asks.get(`/api/runs/${run.runId}`)).json['status']).toBe('parked');
      expect((await asks.get(`/api/interactions/${run.id}`)).json['status']).toBe('pending');
    }
    expect(receiver.attempts).toHaveLength(0);

    const back = Date.now();
    workers.push(...(await Promise.all([spawnGateway('worker', env), spawnGateway('worker', env)])));
    for (const run of runs) {
      const settled = run.policy === 'resume' ? 'resumed' : 'killed';
      await until(
        async () => (await asks.get(`/api/runs/${run.runId}`)).json['status'] === settled,
        `${run.runId} to be ${settled}`,
      );
    }
    const settledMs = Date.now() - back;
    // Give a duplicate every chance to show: another two sweeps' worth of time.
    await new Promise((r) => setTimeout(r, 1_500));
    let duplicates = 0;
    for (const run of runs) {
      expect((await asks.get(`/api/interactions/${run.id}`)).json['status']).toBe('expired');
      const completions = receiver.completed(run.runId);
      duplicates += Math.max(completions.length - 1, 0);
      expect(completions).toHaveLength(1);
      expect(completions[0]?.type).toBe(run.policy === 'resume' ? 'run.resumed' : 'run.killed');
    }
    expect(duplicates).toBe(0);
    figure('deadlines passed while every worker was down', {
      parks: PARKS,
      'expired once': runs.length,
      'duplicate continuations': duplicates,
      'settled after workers came back, ms': settledMs,
    });
  });
});
