import type { ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { startRecorder, startSdkWorker, type Recorder } from '../park/helpers.js';
import { client, faultIdentity, figure, inMs, spawnGateway, stopChild, until, type GatewayProcess } from './helpers.js';

/**
 * An SDK handler worker (a real process, HTTP only) while the gateway it claims through is SIGKILLed and started
 * again on the same address: its waiting claims come back by themselves and take the next continuation; a handler
 * running across the restart completes once, through the new process, under the lease it took from the old one.
 */

const who = faultIdentity('handlers');
const PREFIX = '{fh}:';
let redis: RedisServerHandle;
let port: number;
let serve: GatewayProcess;
let worker: GatewayProcess;
let recorder: Recorder;
let hold: Holder;
let env: Record<string, string>;
const children: ChildProcess[] = [];

/** Answers each GET /hold only when released: a handler waits there for as long as the test needs. */
interface Holder {
  url: string;
  waiting(): number;
  release(): void;
  close(): Promise<void>;
}

async function startHolder(): Promise<Holder> {
  const held: ServerResponse[] = [];
  const server: Server = createServer((_req, res) => void held.push(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: p } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${p}/hold`,
    waiting: () => held.length,
    release: () => {
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: p } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return p;
}

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  [recorder, hold, port] = await Promise.all([startRecorder(), startHolder(), freePort()]);
  env = who.env(redis.url, PREFIX);
  [serve, worker] = await Promise.all([
    spawnGateway('serve', { ...env, PORT: String(port) }),
    spawnGateway('worker', env),
  ]);
});

afterAll(async () => {
  await Promise.all(children.map((c) => stopChild(c, 'SIGKILL')));
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([recorder?.close(), hold?.close()]);
  await redis?.stop();
});

const asks = () => client(serve, who.token);
const runOf = async (runId: string) => (await asks().get(`/api/runs/${runId}`)).json;
const eventsFor = (runId: string, event: string) =>
  recorder.events.filter((e) => e.event === event && e.continuation['run_id'] === runId);

async function parkAndAnswer(runId: string): Promise<void> {
  const res = await asks().post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume: { handler: 'note' } },
  });
  expect(res.status).toBe(201);
  await asks().post(`/api/interactions/${res.json['id'] as string}/answer`, { answer: true });
}

/** SIGKILLs the serving gateway and starts another on the same address; resolves once it listens. */
async function restartServe(): Promise<number> {
  const down = Date.now();
  await serve.stop('SIGKILL');
  serve = await spawnGateway('serve', { ...env, PORT: String(port) });
  return Date.now() - down;
}

describe('a handler worker across a gateway restart', () => {
  it('keeps claiming after the gateway it waits on is SIGKILLed, and runs the next continuation once', async () => {
    const sdk = await startSdkWorker(
      { gatewayUrl: serve.url as string, token: who.token, recorderUrl: recorder.url },
      children,
    );
    const downMs = await restartServe();
    await parkAndAnswer('run-fh-after');
    await until(async () => (await runOf('run-fh-after'))['status'] === 'resumed', 'the run to resume', 30_000);
    expect(eventsFor('run-fh-after', 'started')).toHaveLength(1);
    expect(eventsFor('run-fh-after', 'completed')).toHaveLength(1);
    expect((await runOf('run-fh-after'))['resume_attempts']).toBe(1);
    figure('gateway SIGKILLed under waiting claims', { 'gateway down (ms)': downMs, 'handler runs': 1 });
    await stopChild(sdk);
  });

  it('completes a continuation that was running while the gateway restarted, once, under its lease', async () => {
    const sdk = await startSdkWorker(
      {
        gatewayUrl: serve.url as string,
        token: who.token,
        recorderUrl: recorder.url,
        // A lease that outlives the restart: the continuation stays this worker's throughout.
        env: { HOLD: hold.url, LOCK_MS: '60000' },
      },
      children,
    );
    await parkAndAnswer('run-fh-across');
    await until(() => hold.waiting() === 1, 'the handler to start and hold');
    const downMs = await restartServe();
    hold.release();
    await until(async () => (await runOf('run-fh-across'))['status'] === 'resumed', 'the run to resume', 30_000);
    expect(eventsFor('run-fh-across', 'started')).toHaveLength(1);
    expect(eventsFor('run-fh-across', 'completed')).toHaveLength(1);
    expect((await runOf('run-fh-across'))['resume_attempts']).toBe(1);
    figure('gateway SIGKILLed under a running handler', { 'gateway down (ms)': downMs, 'handler runs': 1 });
    await stopChild(sdk);
  });
});
