import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotDoors } from '../../src/doors/hot-doors.js';
import type { HandlerClaims } from '../../src/runs/handler-claims.js';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { depositPreset } from '../confirmations/helpers.js';
import { OpenApiChecker } from '../helpers/openapi.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The OpenAPI document (`GET /openapi.json`) against the doors themselves: every `/api` door is driven with real
 * requests on a real gateway — in memory, and on a real Redis where the door needs it (parks, runs, follow-ups,
 * failed bridge jobs, flood control) — and every real response, success and refusal, is validated against the
 * document (status documented, media type documented, JSON body matching its schema with ajv 2020-12). The
 * response schemas are closed, so a member added to a response without documenting it fails here; a route the
 * express app or the fast doors serve under `/api` without a path in the document fails the route check.
 */

const ADMIN = 'openapi-admin-token-0123456789';
const WRITER = 'openapi-writer-token-0123456789';
const READER = 'openapi-reader-token-0123456789';
const OTHER = 'openapi-other-token-0123456789';
const BRIDGE = 'openapi-bridge-secret-0123456789';
const TOKENS = JSON.stringify({
  [ADMIN]: { identity: 'ops', scopes: ['read', 'write', 'answer', 'admin'] },
  [WRITER]: { identity: 'writer', scopes: ['read', 'write', 'answer'] },
  [READER]: { identity: 'reader', scopes: ['read'] },
  [OTHER]: { identity: 'other', scopes: ['read', 'write', 'answer'] },
});

interface Reply {
  status: number;
  type: string;
  body: unknown;
  text: string;
}

let checker: OpenApiChecker;
let memory: TestGateway;
let redisGw: TestGateway;
let redis: RedisServerHandle;
let stripe: FakeStripe;

/** One real request; the response is checked against the document at once, and its status against `expected`. */
async function call(
  gw: TestGateway,
  method: string,
  path: string,
  expected: number,
  options: {
    token?: string | null;
    json?: unknown;
    raw?: string;
    type?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? WRITER : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.type ?? 'application/json';
  }
  const res = await fetch(`${gw.url}${path}`, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const parsed: unknown = type.startsWith('application/json') ? JSON.parse(text) : text;
  expect(res.status, `${method} ${path}: ${text.slice(0, 400)}`).toBe(expected);
  expect(checker.check(method, path, res.status, type, parsed)).toEqual([]);
  // A body the door took is one the document's request schema takes too (the schema is not stricter than the door).
  if (res.status < 300 && options.json !== undefined)
    expect(checker.checkRequest(method, path, options.json)).toBe(null);
  return { status: res.status, type, body: parsed, text };
}

const asJson = (reply: Reply): Record<string, unknown> => reply.body as Record<string, unknown>;
const ticketOf = (record: Record<string, unknown>): string =>
  (record['callback_url'] as string).split('/').pop() as string;
const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

beforeAll(async () => {
  [redis, stripe] = await Promise.all([startRedisServer(), startFakeStripe()]);
  const common = {
    ASKGATE_TOKENS: TOKENS,
    INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example',
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_API_URL: stripe.apiUrl,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
  };
  memory = await startTestGateway({ ...common, INTERACTIONS_CALLBACK_RATE: '10000/60' });
  redisGw = await startTestGateway({
    ...common,
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{openapi}:',
    INTERACTIONS_CALLBACK_RATE: '2/60',
  });
  const res = await fetch(`${memory.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  checker = new OpenApiChecker((await res.json()) as Record<string, unknown>);
});

afterAll(async () => {
  await Promise.all([memory?.close(), redisGw?.close()]);
  await Promise.all([redis?.stop(), stripe?.close()]);
});

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document, served without a token', async () => {
    const result = await new Validator().validate(checker.doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(checker.doc['openapi']).toBe('3.1.1');
    expect(checker.doc['jsonSchemaDialect']).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('has a path for every /api route the express app registers, and for every fast door', () => {
    const routes = expressRoutes(memory.gateway.app).filter(([, path]) => path.startsWith('/api/'));
    const documented = new Set(
      Object.entries(checker.doc['paths'] as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m} ${path.replace(/\{[^}]+\}/g, '{}')}`),
      ),
    );
    const missing = routes.map(([m, p]) => `${m} ${p.replace(/:[^/]+/g, '{}')}`).filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
    // Every route written out, so one added to the app and to the document in the same change is seen here too.
    expect(routes.map(([m, p]) => `${m} ${p}`).sort()).toEqual([
      'delete /api/interactions/:id',
      'get /api/confirmations/failed',
      'get /api/interactions',
      'get /api/interactions/:id',
      'get /api/interactions/:id/events',
      'get /api/interactions/:id/result',
      'get /api/interactions/callback/:ticket',
      'get /api/interactions/stream',
      'get /api/presets/:name',
      'get /api/runs/:id',
      'post /api/channels/web/links',
      'post /api/confirmations/failed/:job/retry',
      'post /api/confirmations/reconcile',
      'post /api/continuations/:id/complete',
      'post /api/continuations/:id/extend',
      'post /api/continuations/:id/fail',
      'post /api/continuations/claim',
      'post /api/interactions',
      'post /api/interactions/:id/answer',
      'post /api/interactions/callback/:ticket',
      'post /api/presets/:name/ask',
      'post /api/runs',
      'put /api/presets/:name',
    ]);
    // The continuation doors ahead of express exist on a store with runs; their paths are what is checked here.
    const noClaims = new Proxy({} as HandlerClaims, {
      get: () => () => Promise.reject(new Error('only the paths are read here')),
    });
    const fast = hotDoors(memory.gateway.service, noClaims);
    expect(fast.length).toBe(6);
    for (const door of fast) {
      const hits = [...documented].filter(
        (r) => r.startsWith('post ') && door.path.test(r.slice(5).replace('{}', 'a1')),
      );
      expect(hits, String(door.path)).toHaveLength(1);
    }
  });
});

describe('every door, driven on the in-memory store', () => {
  it('asks, lists, reads, waits, cancels and reads the trail', async () => {
    const text = asJson(
      await call(memory, 'POST', '/api/interactions', 201, { json: { question: 'Why?', answer_format: 'text' } }),
    );
    // The same door through express (a query string keeps the fast door out).
    await call(memory, 'POST', '/api/interactions?via=express', 201, {
      json: { question: 'Which?', answer_format: 'select', choices: ['a', 'b'], group_id: 'g1', link: true },
    });
    await call(memory, 'POST', '/api/interactions', 201, {
      json: {
        question: 'Book?',
        answer_format: 'form',
        schema: { type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'] },
        media: [{ kind: 'image', url: 'https://x.example/a.png', caption: 'this one' }],
        timeout: 60,
      },
    });
    await call(memory, 'POST', '/api/interactions', 201, {
      json: {
        question: 'Ship?',
        answer_format: 'confirm',
        deliver: [
          { channel: 'web', recipient: 'ada' },
          { channel: 'web', recipient: 'bob' },
        ],
        approvers: ['writer', 'other'],
        quorum: { approve: 2 },
      },
    });
    await call(memory, 'GET', '/api/interactions?limit=2', 200);
    await call(memory, 'GET', '/api/interactions?group_id=g1&status=pending', 200);
    await call(memory, 'GET', `/api/interactions/${text['id']}`, 200, { token: READER });
    await call(memory, 'GET', `/api/interactions/${text['id']}/result?wait=0`, 200);
    await call(memory, 'GET', `/api/interactions/${text['id']}/events`, 200);
    await call(memory, 'DELETE', `/api/interactions/${text['id']}`, 403, { token: OTHER });
    await call(memory, 'DELETE', `/api/interactions/${text['id']}`, 200);
    await call(memory, 'DELETE', `/api/interactions/${text['id']}`, 409);
    await call(memory, 'POST', `/api/interactions/${text['id']}/answer`, 410, { json: { answer: 'late' } });
  });

  it('refuses by field, by token, by scope, by size and by store', async () => {
    await call(memory, 'POST', '/api/interactions', 400, { json: { question: 'Why?', answerFormat: 'text' } });
    await call(memory, 'POST', '/api/interactions', 400, { raw: '{"question":' });
    await call(memory, 'POST', '/api/interactions', 401, {
      token: null,
      json: { question: 'Why?', answer_format: 'text' },
    });
    await call(memory, 'POST', '/api/interactions', 401, { token: 'nobody', json: { question: 'Why?' } });
    await call(memory, 'POST', '/api/interactions', 403, { token: READER, json: { question: 'Why?' } });
    await call(memory, 'POST', '/api/interactions', 413, { raw: JSON.stringify({ question: 'x'.repeat(1_100_000) }) });
    const parked = {
      question: 'Ship?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inAnHour(),
      run: { run_id: 'r0', resume: { handler: 'h' } },
    };
    await call(memory, 'POST', '/api/interactions', 409, { json: parked });
    await call(memory, 'GET', '/api/interactions?limit=0', 400);
    await call(memory, 'GET', '/api/interactions?status=answered', 400);
    await call(memory, 'GET', '/api/interactions/nope/result?wait=61', 400);
    await call(memory, 'GET', '/api/interactions/nope', 404);
    await call(memory, 'GET', '/api/interactions/nope/events', 404);
    await call(memory, 'DELETE', '/api/interactions/nope', 404);
  });

  it('answers: won, already answered, invalid, voted, not an approver, callback only, unknown', async () => {
    const confirm = asJson(
      await call(memory, 'POST', '/api/interactions', 201, { json: { question: 'Ship?', answer_format: 'confirm' } }),
    );
    const answer = `/api/interactions/${confirm['id']}/answer`;
    await call(memory, 'POST', answer, 400, { json: { answer: 'yes' } });
    await call(memory, 'POST', answer, 400, { json: { answer: true, note: 'x' } });
    await call(memory, 'POST', answer, 403, { token: READER, json: { answer: true } });
    await call(memory, 'POST', answer, 200, { json: { answer: true } });
    await call(memory, 'POST', `${answer}?via=express`, 200, { json: { answer: false } });
    await call(memory, 'GET', `/api/interactions/${confirm['id']}`, 200);
    await call(memory, 'POST', '/api/interactions/nope/answer', 404, { json: { answer: true } });

    const vote = asJson(
      await call(memory, 'POST', '/api/interactions', 201, {
        json: { question: 'Deploy?', answer_format: 'confirm', approvers: ['writer', 'other'], quorum: { approve: 2 } },
      }),
    );
    await call(memory, 'POST', `/api/interactions/${vote['id']}/answer`, 403, { token: ADMIN, json: { answer: true } });
    expect(
      asJson(await call(memory, 'POST', `/api/interactions/${vote['id']}/answer`, 200, { json: { answer: true } })),
    ).toEqual({
      status: 'voted',
    });
    await call(memory, 'GET', `/api/interactions/${vote['id']}`, 200);

    const bound = asJson(
      await call(memory, 'POST', '/api/interactions', 201, {
        json: { question: 'Sign', answer_format: 'external', verifier: { name: 'shared_secret' } },
      }),
    );
    await call(memory, 'POST', `/api/interactions/${bound['id']}/answer`, 403, { json: { answer: { ok: true } } });
  });

  it('serves the callback door: page, JSON verdicts, verifier refusals, form posts', async () => {
    const form = asJson(
      await call(memory, 'POST', '/api/interactions', 201, {
        json: {
          question: 'Seats?',
          answer_format: 'form',
          schema: { type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'] },
          link: true,
        },
      }),
    );
    const door = `/api/interactions/callback/${ticketOf(form)}`;
    await call(memory, 'GET', door, 200, { token: null });
    await call(memory, 'POST', door, 400, { token: null, json: { answer: { seats: 'two' } } });
    await call(memory, 'POST', door, 400, { token: null, raw: 'not json' });
    await call(memory, 'POST', door, 400, { token: null, raw: 'answer', type: 'text/plain' });
    await call(memory, 'POST', door, 200, { token: null, json: { answer: { seats: 2 } } });
    await call(memory, 'POST', door, 200, { token: null, json: { answer: { seats: 3 } } });
    await call(memory, 'GET', '/api/interactions/callback/unknown.ticket', 404, { token: null });
    await call(memory, 'POST', '/api/interactions/callback/unknown.ticket', 404, { token: null, json: { answer: 1 } });
    await call(memory, 'POST', '/api/interactions/callback/unknown.ticket', 404, {
      token: null,
      raw: 'seats=2',
      type: 'application/x-www-form-urlencoded',
    });
    const bound = asJson(
      await call(memory, 'POST', '/api/interactions', 201, {
        json: { question: 'Sign', answer_format: 'external', verifier: { name: 'shared_secret' } },
      }),
    );
    const boundDoor = `/api/interactions/callback/${ticketOf(bound)}`;
    await call(memory, 'POST', boundDoor, 401, { token: null, json: { signed: true } });
    await call(memory, 'POST', boundDoor, 200, {
      token: null,
      json: { signed: true },
      headers: { 'X-TAI-Bridge-Secret': BRIDGE },
    });
  });

  it('streams events whose data is the documented record', async () => {
    const abort = new AbortController();
    const res = await fetch(`${memory.url}/api/interactions/stream`, {
      headers: { authorization: `Bearer ${READER}` },
      signal: abort.signal,
    });
    expect(
      checker.check('GET', '/api/interactions/stream', res.status, res.headers.get('content-type') ?? '', null),
    ).toEqual([]);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const until = async (needle: string): Promise<void> => {
      while (!seen.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        seen += decoder.decode(value, { stream: true });
      }
    };
    await until(': connected');
    await call(memory, 'POST', '/api/interactions', 201, { json: { question: 'Streamed?', answer_format: 'text' } });
    await until('event: interaction.created');
    while (!seen.slice(seen.indexOf('event: interaction.created')).includes('\n\n')) {
      const { value } = await reader.read();
      seen += decoder.decode(value, { stream: true });
    }
    const event = seen.slice(seen.indexOf('event: interaction.created')).split('\n\n')[0] as string;
    const data = event
      .split('\n')
      .find((l) => l.startsWith('data: '))
      ?.slice(6) as string;
    expect(checker.component('Interaction', JSON.parse(data))).toBe(null);
    abort.abort();
    await call(memory, 'GET', '/api/interactions/stream', 401, { token: null });
    await call(memory, 'GET', '/api/interactions/stream', 401, { token: 'nobody' });
  });

  it('serves presets, confirmations and reconcile', async () => {
    await call(memory, 'PUT', '/api/presets/plain', 200, {
      token: ADMIN,
      json: { ask: { question: 'Approve the refund?', answer_format: 'confirm' } },
    });
    await call(memory, 'PUT', '/api/presets/plain', 200, {
      token: ADMIN,
      json: { ask: { question: 'Approve it?', answer_format: 'confirm' } },
    });
    await call(memory, 'PUT', '/api/presets/plain', 403, { json: { ask: {} } });
    await call(memory, 'PUT', '/api/presets/plain', 400, { token: ADMIN, json: { ask: {}, extra: 1 } });
    await call(memory, 'GET', '/api/presets/plain', 200);
    await call(memory, 'GET', '/api/presets/never-written', 404);
    await call(memory, 'GET', '/api/presets/-bad', 400);
    await call(memory, 'POST', '/api/presets/plain/ask', 201, { json: { timeout: 30 } });
    await call(memory, 'POST', '/api/presets/plain/ask', 400, { json: { question: 'Other?' } });
    await call(memory, 'POST', '/api/presets/never-written/ask', 404, { json: {} });
    await call(memory, 'PUT', '/api/presets/deposit', 200, { token: ADMIN, json: depositPreset('order-7') });
    await call(memory, 'POST', '/api/presets/deposit/ask', 201, { json: {} });
    await call(memory, 'POST', '/api/confirmations/reconcile', 200, { token: ADMIN, json: { lookback_hours: 2 } });
    await call(memory, 'POST', '/api/confirmations/reconcile', 200, { token: ADMIN });
    await call(memory, 'POST', '/api/confirmations/reconcile', 400, { token: ADMIN, json: { lookback_hours: 0 } });
    await call(memory, 'POST', '/api/confirmations/reconcile', 403, { json: {} });
    await call(memory, 'GET', '/api/confirmations/failed', 503, { token: ADMIN });
    await call(memory, 'POST', '/api/confirmations/failed/1/retry', 503, { token: ADMIN });
  });

  it('mints web chat links', async () => {
    await call(memory, 'POST', '/api/channels/web/links', 201, { json: { recipient: 'ada' } });
    await call(memory, 'POST', '/api/channels/web/links', 400, { json: { recipient: '' } });
    await call(memory, 'POST', '/api/channels/web/links', 403, { token: READER, json: { recipient: 'ada' } });
  });

  it('keeps no runs in memory', async () => {
    await call(memory, 'GET', '/api/runs/r1', 404);
    await call(memory, 'POST', '/api/continuations/claim', 409, { json: { handlers: ['h'], wait: 1 } });
    await call(memory, 'POST', '/api/runs', 400, {
      json: { run: { run_id: 'r1', resume: { handler: 'h' } }, asks: [] },
    });
    await call(memory, 'POST', '/api/runs', 409, {
      json: {
        run: { run_id: 'r1', resume: { handler: 'h' } },
        asks: [{ question: 'Ship?', answer_format: 'confirm', expiry_at: inAnHour() }],
      },
    });
  });
});

describe('the doors that need Redis', () => {
  it('parks, fans out, reads runs, follows up, lists and retries failed jobs, floods', async () => {
    const run = { run_id: 'fan-1', resume: { handler: 'h' } };
    const fan = asJson(
      await call(redisGw, 'POST', '/api/runs', 201, {
        json: {
          run,
          asks: [
            { question: 'First?', answer_format: 'confirm', expiry_at: inAnHour() },
            {
              question: 'Second?',
              answer_format: 'text',
              expiry_at: inAnHour(),
              mode: 'async',
              channel: 'web',
              recipient: 'ada',
            },
          ],
        },
      }),
    );
    await call(redisGw, 'POST', '/api/runs', 409, {
      json: { run, asks: [{ question: 'Again?', answer_format: 'confirm', expiry_at: inAnHour() }] },
    });
    await call(redisGw, 'POST', '/api/runs', 400, {
      json: { run, asks: [{ question: 'Again?', answer_format: 'confirm', expiry_at: inAnHour(), run }] },
    });
    const first = (fan['interactions'] as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    await call(redisGw, 'POST', `/api/interactions/${first['id']}/answer`, 200, { json: { answer: true } });
    await call(redisGw, 'GET', '/api/runs/fan-1', 200);
    await call(redisGw, 'GET', '/api/runs/fan-1', 404, { token: OTHER });

    await call(redisGw, 'POST', '/api/interactions', 201, {
      json: {
        question: 'Parked?',
        answer_format: 'select',
        choices: ['yes', 'no'],
        mode: 'async',
        expiry_at: inAnHour(),
        on_expiry: 'resume',
        run: { run_id: 'solo-1', kind: 'agent', resume: { handler: 'h' }, state: { step: 3 } },
      },
    });
    await call(redisGw, 'POST', '/api/interactions', 201, {
      json: {
        question: 'Nudged?',
        answer_format: 'confirm',
        channel: 'web',
        recipient: 'ada',
        timeout: 3600,
        remind: { every: 600, max: 2 },
        escalate: [{ after: 1200, channel: 'web', recipient: 'bob' }],
      },
    });
    await call(redisGw, 'POST', '/api/interactions', 201, {
      json: {
        question: 'For my parent?',
        answer_format: 'text',
        to: 'caller',
        payload: { n: 1 },
        expiry_at: inAnHour(),
        run: { run_id: 'child-1', parent_run_id: 'fan-1', resume: { handler: 'h' } },
      },
    });
    // A handler worker's continuation: claimed, extended, failed (retried), claimed again, completed once.
    const parked = asJson(
      await call(redisGw, 'POST', '/api/interactions', 201, {
        json: {
          question: 'Resume me?',
          answer_format: 'confirm',
          mode: 'async',
          expiry_at: inAnHour(),
          run: { run_id: 'cont-1', resume: { handler: 'cw' } },
        },
      }),
    );
    await call(redisGw, 'POST', '/api/continuations/claim', 204, { json: { handlers: ['cw'], wait: 1 } });
    await call(redisGw, 'POST', `/api/interactions/${parked['id']}/answer`, 200, { json: { answer: true } });
    const claim = { handlers: ['cw'], wait: 10, lease_ms: 60_000 };
    const lease1 = asJson(await call(redisGw, 'POST', '/api/continuations/claim', 200, { json: claim }));
    const at = `/api/continuations/${lease1['resume_id']}`;
    await call(redisGw, 'POST', `${at}/extend`, 200, { json: { lease_id: lease1['lease_id'], lease_ms: 60_000 } });
    await call(redisGw, 'POST', `${at}/extend`, 400, { json: { lease_id: lease1['lease_id'], lease_ms: 5 } });
    await call(redisGw, 'POST', `${at}/fail`, 200, {
      json: { lease_id: lease1['lease_id'], error: 'flaky', retry_base_ms: 10 },
    });
    const lease2 = asJson(await call(redisGw, 'POST', '/api/continuations/claim', 200, { json: claim }));
    await call(redisGw, 'POST', `${at}/complete`, 409, { json: { lease_id: lease1['lease_id'] } });
    await call(redisGw, 'POST', `${at}/complete`, 200, {
      json: { lease_id: lease2['lease_id'], output: { ok: true } },
    });
    await call(redisGw, 'POST', `${at}/complete`, 409, { json: { lease_id: lease2['lease_id'] } });
    await call(redisGw, 'POST', '/api/continuations/nope/extend', 409, { json: { lease_id: 'x', lease_ms: 1000 } });

    await call(redisGw, 'GET', '/api/confirmations/failed', 200, { token: ADMIN });
    await call(redisGw, 'POST', '/api/confirmations/failed/nope/retry', 404, { token: ADMIN });
    // A failed bridge job: a session completed after its question was cancelled (the callback's 404, a verdict).
    await call(redisGw, 'PUT', '/api/presets/deposit', 200, { token: ADMIN, json: depositPreset('order-9') });
    const deposit = asJson(await call(redisGw, 'POST', '/api/presets/deposit/ask', 201, { json: {} }));
    await call(redisGw, 'DELETE', `/api/interactions/${deposit['id']}`, 200);
    stripe.webhookUrl = `${redisGw.url}/webhooks/stripe`;
    const delivered = await stripe.deliver(stripe.complete((deposit['confirmation'] as { id: string }).id));
    expect(delivered.status).toBe(200);
    let jobs: Array<{ job: string }> = [];
    while (jobs.length === 0) {
      const listed = await call(redisGw, 'GET', '/api/confirmations/failed', 200, { token: ADMIN });
      jobs = asJson(listed)['items'] as Array<{ job: string }>;
    }
    await call(redisGw, 'POST', `/api/confirmations/failed/${jobs[0]?.job}/retry`, 200, { token: ADMIN });

    // Flood control: two callback requests a minute here; the third is refused with Retry-After.
    await call(redisGw, 'GET', '/api/interactions/callback/unknown.ticket', 404, { token: null });
    await call(redisGw, 'POST', '/api/interactions/callback/unknown.ticket', 404, { token: null, json: { answer: 1 } });
    await call(redisGw, 'POST', '/api/interactions/callback/unknown.ticket', 429, { token: null, json: { answer: 1 } });
    await call(redisGw, 'GET', '/api/interactions/callback/unknown.ticket', 429, { token: null });
  });
});

describe('a provider that fails', () => {
  it('is the 502 of the preset ask and of reconcile', async () => {
    // Stripe failing (more calls than its client retries): the provider's refusal, as 502s.
    stripe.outage('500', 20);
    await call(memory, 'POST', '/api/presets/deposit/ask', 502, { json: {} });
    await call(memory, 'POST', '/api/confirmations/reconcile', 502, { token: ADMIN, json: {} });
  });
});

describe('coverage', () => {
  it('saw a success of every documented operation', () => {
    const paths = checker.doc['paths'] as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const successes = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        operation: `${method} ${path}`,
        ok: Object.keys(op.responses).filter((s) => s.startsWith('2')),
      })),
    );
    const seen = new Set(checker.seen.map((s) => `${s.operation} ${s.status}`));
    const unseen = successes
      .filter(({ operation }) => operation !== 'get /openapi.json')
      .filter(({ operation, ok }) => !ok.some((s) => seen.has(`${operation} ${s}`)))
      .map(({ operation }) => operation);
    expect(unseen).toEqual([]);
  });
});

/** `[method, path]` of every route of an express app, nested routers included. */
function expressRoutes(app: unknown): Array<[string, string]> {
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
    handle?: { stack?: Layer[] };
  }
  const out: Array<[string, string]> = [];
  const walk = (stack: Layer[]): void => {
    for (const layer of stack) {
      if (layer.route !== undefined) {
        for (const [method, on] of Object.entries(layer.route.methods)) if (on) out.push([method, layer.route.path]);
      } else if (layer.handle?.stack !== undefined) walk(layer.handle.stack);
    }
  };
  walk((app as { router: { stack: Layer[] } }).router.stack);
  return out;
}
