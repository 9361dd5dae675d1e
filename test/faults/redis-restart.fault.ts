import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { postUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
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
 * Redis (append-only file, fsync always) killed and restarted while asks, answers, parks and resumes are in flight,
 * through two `askgate serve` and two `askgate worker` processes. While it is down every door answers 503 with
 * Retry-After, promptly (never a 500, never a hang) and /readyz says so; afterwards every acknowledged answer is
 * there once, every parked run whose ask was answered resumed once and every other one is still parked, and nothing
 * needed a restart of askgate.
 */

const who = faultIdentity('restart');
const PREFIX = '{fr}:';
/** A door that takes longer than this while Redis is down counts as a hang. */
const HANG_MS = 15_000;
const DOWN_MS = 5_000;
const TG_SECRET = 'tg-restart-webhook-secret_0123456789';
const CHAT = '7400001';
let redis: RedisServerHandle;
let receiver: FaultReceiver;
let telegram: FakeTelegram;
let gateways: GatewayProcess[] = [];
let serves: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ own: true, aof: true });
  [receiver, telegram] = await Promise.all([
    startFaultReceiver(who.secret),
    startFakeTelegram({ token: '123456:RESTART-token-for-the-fake' }),
  ]);
  const env = who.env(redis.url, PREFIX, {
    TELEGRAM_BOT_TOKEN: '123456:RESTART-token-for-the-fake',
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
  });
  gateways = await Promise.all([
    spawnGateway('serve', env),
    spawnGateway('serve', env),
    spawnGateway('worker', env),
    spawnGateway('worker', env),
  ]);
  serves = gateways.slice(0, 2);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => stopChild(g.child)));
  await Promise.all([receiver?.close(), telegram?.close()]);
  await redis?.stop();
});

/** One door call, bounded: its status (or `hang`), body, Retry-After and how long it took. */
interface Call {
  status: number | 'hang';
  json: Record<string, unknown>;
  retryAfter: string | null;
  ms: number;
}

/** Every call the scenario made, to count what Redis being away looked like from outside. */
const calls: Call[] = [];
let next = 0;

async function door(method: string, path: string, body?: unknown): Promise<Call> {
  const base = serves[next++ % serves.length]?.url as string;
  const started = Date.now();
  let call: Call;
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    call = {
      status: res.status,
      json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      retryAfter: res.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  } catch {
    call = { status: 'hang', json: {}, retryAfter: null, ms: Date.now() - started };
  }
  calls.push(call);
  return call;
}

/** A door call retried on 503 as a client honouring Retry-After would (capped at half a second, to keep the test short). */
async function retrying(method: string, path: string, body?: unknown): Promise<{ final: Call; retried: boolean }> {
  let retried = false;
  for (;;) {
    const call = await door(method, path, body);
    if (call.status !== 503) return { final: call, retried };
    retried = true;
    await new Promise((r) => setTimeout(r, Math.min(Number(call.retryAfter ?? 1) * 1000, 500)));
  }
}

interface Park {
  runId: string;
  id: string | null;
  /** The answer the gateway acknowledged (`answered`, or `already_answered` after a 503 that had in fact landed). */
  answered: string | null;
}

async function park(runId: string): Promise<Park> {
  const body = {
    question: `Go ${runId}?`,
    answer_format: 'text',
    mode: 'async',
    expiry_at: inMs(3_600_000),
    run: { run_id: runId, resume: { webhook: `${receiver.url}/hook` } },
  };
  const { final, retried } = await retrying('POST', '/api/interactions', body);
  if (final.status === 201) return { runId, id: final.json['id'] as string, answered: null };
  // A park whose 503 had in fact been written: the retry finds the run parked; the run names its ask.
  expect(retried && final.status === 409, `park ${runId}: ${final.status} ${JSON.stringify(final.json)}`).toBe(true);
  const view = await retrying('GET', `/api/runs/${runId}`);
  const asks = view.final.json['asks'] as Array<{ interaction_id: string }>;
  return { runId, id: asks[0]?.interaction_id ?? null, answered: null };
}

interface Question {
  id: string;
  answered: string | null;
}

async function ask(n: number): Promise<Question> {
  const { final } = await retrying('POST', '/api/interactions', {
    question: `Sync ${n}?`,
    answer_format: 'text',
    timeout: 600,
  });
  expect(final.status).toBe(201);
  return { id: final.json['id'] as string, answered: null };
}

async function answer(target: { id: string | null; answered: string | null }, text: string): Promise<void> {
  const { final, retried } = await retrying('POST', `/api/interactions/${target.id}/answer`, { answer: text });
  const status = final.json['status'];
  // already_answered is ours only when an earlier attempt's 503 had in fact landed: nothing else answers these.
  expect(status === 'answered' || (retried && status === 'already_answered'), JSON.stringify(final)).toBe(true);
  target.answered = text;
}

describe('Redis killed and restarted under load', () => {
  it('loses no answer, resumes no run twice, answers 503 + Retry-After while down, and recovers by itself', async () => {
    const parks: Park[] = [];
    const questions: Question[] = [];
    for (let i = 0; i < 20; i += 1) parks.push(await park(`run-before-${i}`));
    for (let i = 0; i < 20; i += 1) questions.push(await ask(i));
    const chatAsk = await retrying('POST', '/api/interactions', {
      question: 'Tap while Redis is away?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: CHAT,
      timeout: 600,
    });
    expect(chatAsk.final.status).toBe(201);
    const message = telegram.messagesIn(CHAT)[0];
    expect(message).toBeDefined();
    const tap = tapUpdate(message as NonNullable<typeof message>, { label: 'Yes' });

    // The load: answers to the asks made before, new asks and parks, all while Redis goes away and comes back.
    let loading = true;
    const answering = (async () => {
      const targets = [...parks, ...questions];
      for (let i = 0; i < targets.length; i += 1) {
        await answer(targets[i] as Park | Question, `answer-${i}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    const asking = (async () => {
      let n = 0;
      while (loading) {
        parks.push(await park(`run-during-${n}`));
        questions.push(await ask(1000 + n));
        n += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    await new Promise((r) => setTimeout(r, 1_000));
    const downAt = Date.now();
    const restarted = redis.restart({ crash: true, downMs: DOWN_MS });
    await new Promise((r) => setTimeout(r, 500));
    // While it is down, all at once: /readyz says so, a door answers 503 with Retry-After rather than hanging, and a
    // tap on Telegram is refused with a 5xx, so Telegram delivers the update again later.
    const [ready, refused, tapWhileDown] = await Promise.all([
      door('GET', '/readyz'),
      door('POST', '/api/interactions', { question: 'Down?', answer_format: 'text', timeout: 5 }),
      postUpdate(serves[0]?.url as string, TG_SECRET, tap),
    ]);
    expect(Date.now() - downAt).toBeLessThan(DOWN_MS);
    expect(ready.status).toBe(503);
    expect(ready.retryAfter).not.toBeNull();
    expect(refused.status).toBe(503);
    expect(refused.json['error']).toBe('store_unavailable');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(tapWhileDown).toBe(503);
    await restarted;
    const upAt = Date.now();
    await until(async () => (await door('GET', '/readyz')).status === 200, '/readyz to answer 200 again');
    const readyAfterMs = Date.now() - upAt;
    await answering;
    loading = false;
    await asking;
    // Telegram's redelivery lands, and answers the question; a second copy changes nothing.
    expect(await postUpdate(serves[1]?.url as string, TG_SECRET, tap)).toBe(200);
    expect(await postUpdate(serves[0]?.url as string, TG_SECRET, tap)).toBe(200);
    const chatQuestion = await door('GET', `/api/interactions/${chatAsk.final.json['id']}`);
    expect(chatQuestion.json['status']).toBe('answered');
    expect((chatQuestion.json['result'] as { answer: unknown }).answer).toBe(true);

    // Every acknowledged answer is there, once, as given; every acknowledged ask exists.
    let answersLost = 0;
    let asksLost = 0;
    for (const q of [...questions, ...parks]) {
      const got = await door('GET', `/api/interactions/${q.id}`);
      if (got.status !== 200) asksLost += 1;
      else if (q.answered !== null) {
        const result = got.json['result'] as { answer?: unknown } | null;
        if (got.json['status'] !== 'answered' || result?.answer !== q.answered) answersLost += 1;
      }
    }
    // Every answered park resumes once; every other one stays parked, nothing delivered.
    const answeredParks = parks.filter((p) => p.answered !== null);
    for (const p of answeredParks) {
      await until(
        async () => (await door('GET', `/api/runs/${p.runId}`)).json['status'] === 'resumed',
        `${p.runId} to resume`,
        30_000,
      );
    }
    await new Promise((r) => setTimeout(r, 2_000)); // two sweeps more: a duplicate would show now
    let duplicates = 0;
    let stillParked = 0;
    for (const p of parks) {
      const completions = receiver.completed(p.runId).length;
      if (p.answered !== null) {
        duplicates += Math.max(completions - 1, 0);
        expect(completions, p.runId).toBe(1);
      } else {
        expect((await door('GET', `/api/runs/${p.runId}`)).json['status']).toBe('parked');
        expect(completions).toBe(0);
        stillParked += 1;
      }
    }
    // The event subscriptions came back too: a waiter on one gateway wakes on an answer given through the other.
    const late = await ask(9_999);
    const serveA = serves[0]?.url as string;
    const waited = fetch(`${serveA}/api/interactions/${late.id}/result?wait=10`, {
      headers: { authorization: `Bearer ${who.token}` },
      signal: AbortSignal.timeout(HANG_MS),
    }).then(async (res) => ({ at: Date.now(), json: (await res.json()) as Record<string, unknown> }));
    await new Promise((r) => setTimeout(r, 300));
    const answeredAt = Date.now();
    const answeredOnB = await fetch(`${serves[1]?.url as string}/api/interactions/${late.id}/answer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'after the restart' }),
    });
    expect(answeredOnB.status).toBe(200);
    const woke = await waited;
    expect(woke.json['status']).toBe('answered');
    expect(woke.at - answeredAt).toBeLessThan(2_000);

    const unavailable = calls.filter((c) => c.status === 503);
    const otherFailures = calls.filter(
      (c) => c.status === 'hang' || (typeof c.status === 'number' && c.status >= 500 && c.status !== 503),
    );
    const slowest503 = Math.max(0, ...unavailable.map((c) => c.ms));
    figure('Redis killed and restarted under load', {
      'down ms': upAt - downAt,
      'asks acknowledged': questions.length + parks.length,
      'asks lost': asksLost,
      'answers acknowledged': [...questions, ...parks].filter((q) => q.answered !== null).length,
      'answers lost': answersLost,
      'Telegram tap while down': `${tapWhileDown}, then answered on redelivery`,
      'runs resumed once': answeredParks.length,
      'runs still parked': stillParked,
      'duplicate resumes': duplicates,
      '503 with Retry-After': unavailable.filter((c) => c.retryAfter !== null).length,
      '503 without Retry-After': unavailable.filter((c) => c.retryAfter === null).length,
      'other 5xx or hangs': otherFailures.length,
      'slowest 503 ms': slowest503,
      'ready again after restart ms': readyAfterMs,
    });
    expect(answersLost).toBe(0);
    expect(asksLost).toBe(0);
    expect(duplicates).toBe(0);
    expect(unavailable.every((c) => c.retryAfter !== null)).toBe(true);
    expect(otherFailures).toEqual([]);
    expect(slowest503).toBeLessThan(HANG_MS);
    expect(unavailable.length).toBeGreaterThan(0);
  });
});
