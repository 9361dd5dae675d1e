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
 * A resume webhook's target misbehaves — answers 500, resets the connection, answers too slowly — and the worker
 * retries with exponential backoff under one `webhook-id`, each attempt counted on `GET /api/runs/{id}` with how it
 * ended (`resume_attempt_outcomes`).
 */

const BACKOFF_MS = 200;
const who = faultIdentity('hooks');
let redis: RedisServerHandle;
let serve: GatewayProcess;
let worker: GatewayProcess;
let receiver: FaultReceiver;

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  receiver = await startFaultReceiver(who.secret);
  const env = who.env(redis.url, '{fh}:', { ASKGATE_RESUME_BACKOFF_MS: String(BACKOFF_MS) });
  [serve, worker] = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env)]);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop()]);
  await receiver?.close();
  await redis?.stop();
});

/** Parks `runId` resuming at `path` on the receiver, answers it, and waits until the run has resumed. */
async function parkAnswerAndResume(runId: string, path: string): Promise<Record<string, unknown>> {
  const asks = client(serve, who.token);
  const parked = await asks.post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume: { webhook: `${receiver.url}${path}` } },
  });
  expect(parked.status).toBe(201);
  const answered = await asks.post(`/api/interactions/${parked.json['id']}/answer`, { answer: true });
  expect(answered.json['status']).toBe('answered');
  await until(
    async () => (await asks.get(`/api/runs/${runId}`)).json['status'] === 'resumed',
    `${runId} to resume`,
    40_000,
  );
  return (await asks.get(`/api/runs/${runId}`)).json;
}

/** The attempts of `runId`, checked: one webhook-id throughout, each gap at least the backoff's lower bound. */
function checkRetries(runId: string, failures: number): { gaps: number[] } {
  const attempts = receiver.attempts.filter((a) => a.runId === runId);
  expect(attempts).toHaveLength(failures + 1);
  expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
  expect(attempts.slice(0, failures).every((a) => a.outcome !== 'ok')).toBe(true);
  expect(receiver.completed(runId)).toHaveLength(1);
  const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i] as (typeof attempts)[number]).at);
  // backoffDelay waits between half and all of base·2^(k-1) after the k-th failure: the floor doubles per attempt.
  gaps.forEach((gap, i) => {
    expect(gap).toBeGreaterThanOrEqual((BACKOFF_MS * 2 ** i) / 2 - 10);
  });
  return { gaps };
}

/** The run's attempt outcomes as `GET /api/runs/{id}` shows them, without their times. */
function outcomesOf(run: Record<string, unknown>): Array<Record<string, unknown>> {
  return (run['resume_attempt_outcomes'] as Array<Record<string, unknown>>).map(({ at: _at, ...rest }) => rest);
}

describe('a misbehaving webhook target', () => {
  it('answers 500 three times: four attempts, one webhook-id, backoff doubling, attempts on the run', async () => {
    const run = await parkAnswerAndResume('run-500s', '/fail/3/hook');
    const { gaps } = checkRetries('run-500s', 3);
    expect(run['resume_attempts']).toBe(4);
    const failed = { outcome: 'http_error', status: 500 };
    expect(outcomesOf(run)).toEqual([failed, failed, failed, { outcome: 'delivered', status: 200 }]);
    figure('webhook target answers 500 ×3', {
      attempts: 4,
      'webhook-ids': 1,
      'gaps ms': gaps.join('/'),
      completions: receiver.completed('run-500s').length,
    });
  });

  it('resets the connection twice: three attempts, one webhook-id, one completion', async () => {
    const run = await parkAnswerAndResume('run-resets', '/reset/2/hook');
    const { gaps } = checkRetries('run-resets', 2);
    expect(run['resume_attempts']).toBe(3);
    const reset = { outcome: 'network_error', error: 'ECONNRESET' };
    expect(outcomesOf(run)).toEqual([reset, reset, { outcome: 'delivered', status: 200 }]);
    figure('webhook target resets the connection ×2', {
      attempts: 3,
      'webhook-ids': 1,
      'gaps ms': gaps.join('/'),
      completions: receiver.completed('run-resets').length,
    });
  });

  it('answers slowly within the 10 s limit: one attempt, no retry', async () => {
    const run = await parkAnswerAndResume('run-slow-ok', '/slow/2000/1/hook');
    checkRetries('run-slow-ok', 0);
    expect(run['resume_attempts']).toBe(1);
    figure('webhook target answers after 2 s', { attempts: 1, completions: 1 });
  });

  it('answers slower than the 10 s limit: the attempt is abandoned and retried under the same webhook-id', async () => {
    const run = await parkAnswerAndResume('run-slow-timeout', '/slow/11000/1/hook');
    await until(
      () => receiver.attempts.find((a) => a.runId === 'run-slow-timeout')?.outcome === 'abandoned',
      'the slow attempt to end',
    );
    const { gaps } = checkRetries('run-slow-timeout', 1);
    expect(gaps[0]).toBeGreaterThanOrEqual(10_000);
    expect(run['resume_attempts']).toBe(2);
    expect(outcomesOf(run)).toEqual([
      { outcome: 'network_error', error: 'timeout' },
      { outcome: 'delivered', status: 200 },
    ]);
    figure('webhook target answers after 11 s', {
      attempts: 2,
      'webhook-ids': 1,
      'first attempt abandoned after ms': gaps[0] ?? 0,
      completions: receiver.completed('run-slow-timeout').length,
    });
    expect(receiver.unverified).toBe(0);
  });
});
