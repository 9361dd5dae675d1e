import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { PERSON, nextUpdateId, postUpdate } from '../fakes/telegram-updates.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  client,
  faultIdentity,
  figure,
  inMs,
  spawnGateway,
  startFaultReceiver,
  stopChild,
  until,
  type FaultReceiver,
  type GatewayProcess,
} from './helpers.js';

/**
 * Workers SIGKILLed at the worst moments — in the middle of a webhook continuation, between the claim that made a run
 * due and its enqueue, and while a chat reply is on its way to the platform — and another worker finishing the job:
 * exactly one completion, one reply in the thread.
 */

const who = faultIdentity('kills');
const PREFIX = '{fk}:';
const LOCK_MS = 1_500;
const TG_SECRET = 'tg-fault-webhook-secret_0123456789';
let redis: RedisServerHandle;
let serve: GatewayProcess;
let receiver: FaultReceiver;
let fake: FakeTelegram;
let telegram: HoldingProxy;
let env: Record<string, string>;
const workers: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  [receiver, fake] = await Promise.all([
    startFaultReceiver(who.secret),
    startFakeTelegram({ token: '123456:FAULT-token-for-the-fake' }),
  ]);
  telegram = await startHoldingProxy(fake.apiRoot);
  env = who.env(redis.url, PREFIX, {
    ASKGATE_RESUME_LOCK_MS: String(LOCK_MS),
    TELEGRAM_BOT_TOKEN: '123456:FAULT-token-for-the-fake',
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: telegram.url,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ASKGATE_ROUTES: JSON.stringify([
      { name: 'ops', channel: 'telegram', identity: 'kills', target: { webhook: `${receiver.url}/turn` } },
    ]),
  });
  serve = await spawnGateway('serve', env);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), ...workers.map((w) => stopChild(w.child, 'SIGKILL'))]);
  await Promise.all([receiver?.close(), telegram?.close(), fake?.close()]);
  await redis?.stop();
});

async function startWorker(): Promise<GatewayProcess> {
  const worker = await spawnGateway('worker', env);
  workers.push(worker);
  return worker;
}

const asks = () => client(serve, who.token);
const runStatus = async (runId: string) => (await asks().get(`/api/runs/${runId}`)).json['status'];

async function park(runId: string, path: string): Promise<string> {
  const res = await asks().post('/api/interactions', {
    question: 'Ship it?',
    answer_format: 'confirm',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume: { webhook: `${receiver.url}${path}` } },
  });
  expect(res.status).toBe(201);
  return res.json['id'] as string;
}

describe('a worker SIGKILLed', () => {
  it('during a webhook continuation: another worker reruns it once, under the same webhook-id', async () => {
    const doomed = await startWorker();
    const id = await park('run-kill-hook', '/hang/1/hook');
    expect((await asks().post(`/api/interactions/${id}/answer`, { answer: true })).json['status']).toBe('answered');
    await until(
      () => receiver.attempts.some((a) => a.runId === 'run-kill-hook' && a.outcome === 'hung'),
      'the continuation to reach the target',
    );
    const survivor = await startWorker();
    await stopChild(doomed.child, 'SIGKILL');
    const killedAt = Date.now();
    await until(async () => (await runStatus('run-kill-hook')) === 'resumed', 'the rerun to complete');
    const attempts = receiver.attempts.filter((a) => a.runId === 'run-kill-hook');
    expect(attempts.map((a) => a.outcome)).toEqual(['hung', 'ok']);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
    expect(receiver.completed('run-kill-hook')).toHaveLength(1);
    figure('worker SIGKILLed during a webhook continuation', {
      completions: receiver.completed('run-kill-hook').length,
      'webhook-ids': 1,
      'rerun completed after kill, ms': Date.now() - killedAt,
    });
    await stopChild(survivor.child);
  });

  it('between the claim and the enqueue: a worker frozen there and SIGKILLed, then a live worker resumes the run once', async () => {
    // The claim here is the expiry of a parked ask with on_expiry "resume", made by a worker's deadline sweep; the
    // doomed worker runs with the test-only hook that freezes it right after that claim committed (src/runs/test-hold.ts).
    const res = await asks().post('/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(2_000),
      on_expiry: 'resume',
      run: { run_id: 'run-kill-claim', resume: { webhook: `${receiver.url}/hook` } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const doomed = await spawnGateway('worker', { ...env, ASKGATE_TEST_HOLD_BEFORE_ENQUEUE: '1' });
    workers.push(doomed);
    await until(
      () => doomed.output().includes('the claim settling run run-kill-claim committed; frozen before its enqueue'),
      'the doomed worker to claim the expiry and freeze',
      30_000,
    );
    await stopChild(doomed.child, 'SIGKILL');
    // The claim is in Redis (the run is due, its ask expired); no job was enqueued, so nothing reached the target.
    const claimed = (await asks().get('/api/runs/run-kill-claim')).json;
    expect(claimed['status']).toBe('parked');
    expect(claimed['resuming']).toBe(true);
    expect((claimed['asks'] as Array<Record<string, unknown>>)[0]?.['status']).toBe('expired');
    expect(receiver.attempts.filter((a) => a.runId === 'run-kill-claim')).toHaveLength(0);
    const killedAt = Date.now();
    await startWorker();
    await until(async () => (await runStatus('run-kill-claim')) === 'resumed', 'the sweep to resume the run', 40_000);
    const sweptMs = Date.now() - killedAt;
    await new Promise((r) => setTimeout(r, 2_000)); // two more sweeps: neither may enqueue it again
    expect(receiver.completed('run-kill-claim')).toHaveLength(1);
    expect(receiver.attempts.filter((a) => a.runId === 'run-kill-claim')).toHaveLength(1);
    figure('worker SIGKILLed between the claim and the enqueue', {
      completions: receiver.completed('run-kill-claim').length,
      'resumed by the sweep after kill, ms': sweptMs,
    });
  });

  it('during a reply job: the reply is posted into the thread once, by another worker', async () => {
    await Promise.all(workers.splice(0).map((w) => stopChild(w.child)));
    const doomed = await startWorker();
    const chat = '7300001';
    const messageId = 61_001;
    telegram.holdNextReply(chat);
    const update = {
      update_id: nextUpdateId(),
      message: {
        message_id: messageId,
        date: 1_700_000_200,
        chat: { id: Number(chat), type: 'private', first_name: 'Ada' },
        from: PERSON,
        text: 'status?',
      },
    };
    expect(await postUpdate(serve.url as string, TG_SECRET, update)).toBe(200);
    await until(() => telegram.held() === 1, 'the reply to be on its way to Telegram');
    const survivor = await startWorker();
    await stopChild(doomed.child, 'SIGKILL');
    const repliesInThread = () =>
      fake
        .callsTo('sendMessage')
        .filter(
          (c) =>
            String(c.payload['chat_id']) === chat &&
            (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === messageId,
        );
    await until(() => repliesInThread().length === 1, 'the reply to be posted by the survivor', 30_000);
    await new Promise((r) => setTimeout(r, LOCK_MS * 2)); // another stalled check: the job must not run again
    expect(repliesInThread()).toHaveLength(1);
    expect(repliesInThread()[0]?.payload['text']).toBe('on it');
    // The route target answered the turn once; the reply job alone was rerun.
    expect(receiver.attempts.filter((a) => a.type === 'conversation.turn' && a.outcome === 'ok')).toHaveLength(1);
    figure('worker SIGKILLed during a reply job', { 'replies in the thread': repliesInThread().length, turns: 1 });
    await stopChild(survivor.child);
  });
});

/**
 * A loopback proxy in front of the Telegram fake that forwards every call, except that it can hold the next reply
 * into one chat (a `sendMessage` with `reply_parameters`) without forwarding it: a reply in flight when its worker dies.
 */
interface HoldingProxy {
  url: string;
  holdNextReply(chatId: string): void;
  /** How many calls it is holding. */
  held(): number;
  close(): Promise<void>;
}

async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let holdFor: string | null = null;
  const held: ServerResponse[] = [];
  const forward = async (req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> => {
    const upstream = await fetch(`${target}${req.url ?? ''}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(raw),
    });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (holdFor !== null && (req.url ?? '').endsWith('/sendMessage')) {
        const body = parseBody(raw);
        if (String(body['chat_id']) === holdFor && body['reply_parameters'] !== undefined) {
          holdFor = null;
          held.push(res);
          return;
        }
      }
      forward(req, raw, res).catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holdNextReply: (chatId) => {
      holdFor = chatId;
    },
    held: () => held.length,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.socket?.destroy();
        server.close(() => r());
      }),
  };
}

function parseBody(raw: Buffer): Record<string, unknown> {
  try {
    return JSON.parse(raw.toString()) as Record<string, unknown>;
  } catch {
    return {};
  }
}
