import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_KEY, STRIPE_WHSEC, startFakeStripe, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  anyJson,
  call,
  edgyNumber,
  edgyString,
  expectWellRefused,
  fuzzParameters,
  fuzzTimeout,
  mutate,
  mutation,
} from './fuzz-helpers.js';
import { settle, snapshot, written } from './snapshot.js';

/**
 * Fuzzing the doors a person's browser and an operator use, on the Redis store: the web chat's API (link minting,
 * messages, answers and replies under random link tokens and bodies) and the confirmation doors (preset GET and ask,
 * reconcile, the failed bridge jobs and their retry). Never a 5xx, the gateway alive after each case, a 4xx that
 * names its field, and a refusal that writes nothing (a refused answer leaves the question exactly as it was).
 */

const TOKEN = 'fuzz-operator-token-0123456789abcdef';
let redis: RedisServerHandle;
let raw: Redis;
let stripe: FakeStripe;
let gw: TestGateway;
/** Flood counters (fixed windows) change and expire on their own. */
const VOLATILE = /:w:/;

beforeAll(async () => {
  [redis, stripe] = await Promise.all([startRedisServer({ own: true }), startFakeStripe()]);
  raw = new Redis(redis.url);
  gw = await startTestGateway(
    {
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: '{fzo}:',
      ASKGATE_TOKENS: JSON.stringify({
        [TOKEN]: { identity: 'operator', scopes: ['read', 'write', 'answer', 'admin'] },
      }),
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      INTERACTIONS_CALLBACK_RATE: '1000000/60',
      STRIPE_SECRET_KEY: STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
      STRIPE_API_URL: stripe.apiUrl,
    },
    { workers: false },
  );
  await settle(raw, VOLATILE);
});
afterAll(async () => {
  raw?.disconnect();
  await gw?.close();
  await Promise.all([stripe?.close(), redis?.stop()]);
});

const auth = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...auth, 'content-type': 'application/json' };

async function alive(): Promise<void> {
  expect((await call(`${gw.url}/healthz`, {})).status).toBe(200);
}

/** A random path segment, percent-encoded (a lone surrogate cannot be, so it is left out). */
const segment = edgyString
  .filter((s) => s !== '')
  .map((s) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return 'x';
    }
  });

async function linkToken(recipient: string): Promise<string> {
  const res = await call(`${gw.url}/api/channels/web/links`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ recipient }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as Record<string, string>)['token'] as string;
}

/** A pending web question per format for `fz-person`, replaced once an accepted answer resolved it. */
const WEB_ASKS: Record<string, unknown>[] = [
  { question: 'Ship it?', answer_format: 'confirm' },
  { question: 'Pick one', answer_format: 'select', choices: ['a', 'b'] },
  { question: 'Say', answer_format: 'text' },
  {
    question: 'Fill',
    answer_format: 'form',
    schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
  },
];
const webPending = new Map<number, string>();

async function webQuestion(which: number): Promise<string> {
  const known = webPending.get(which);
  if (known !== undefined) return known;
  const res = await call(`${gw.url}/api/interactions`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ ...WEB_ASKS[which], channel: 'web', recipient: 'fz-person' }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as Record<string, string>)['id'] as string;
  webPending.set(which, id);
  return id;
}

const readRecord = async (id: string): Promise<string> =>
  JSON.stringify((await call(`${gw.url}/api/interactions/${id}`, { headers: auth })).body);

describe('the web chat API', () => {
  it(
    'answers, replies and messages under random link tokens and bodies: never a 5xx; a refusal changes nothing',
    async () => {
      const mine = await linkToken('fz-person');
      const stranger = await linkToken('fz-stranger');
      const bearer = fc.oneof(
        fc.constant(mine),
        fc.constant(stranger),
        edgyString,
        fc.constant(`${mine.slice(0, -2)}xx`),
        fc.constant(''),
      );
      const body = fc.oneof(
        anyJson,
        fc.oneof(anyJson, fc.constantFrom(true, false, 'a', 'b', { n: 1 }, { n: 0 })).map((a) => ({ answer: a })),
        fc.oneof(edgyString, fc.constantFrom('yes', 'no', '1', 'a')).map((t) => ({ text: t })),
      );
      const door = fc.constantFrom('answer', 'reply', 'messages', 'question');
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: WEB_ASKS.length - 1 }),
          door,
          bearer,
          body,
          fc.boolean(),
          async (which, kind, token, sent, realId) => {
            const id = realId ? await webQuestion(which) : 'does-not-exist';
            const before = await snapshot(raw, VOLATILE);
            const path =
              kind === 'messages'
                ? '/chat/api/messages'
                : kind === 'question'
                  ? `/chat/api/questions/${id}`
                  : `/chat/api/questions/${id}/${kind}`;
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (/^[\x21-\x7e]*$/.test(token)) headers['authorization'] = `Bearer ${token}`;
            const res = await call(`${gw.url}${path}`, {
              method: kind === 'question' ? 'GET' : 'POST',
              headers,
              ...(kind === 'question' ? {} : { body: JSON.stringify(sent) }),
            });
            expectWellRefused(res.status, res.body, `${path} ${JSON.stringify(sent).slice(0, 300)}`);
            if (res.status >= 400)
              expect(await written(raw, before, VOLATILE), 'a refused chat request wrote to Redis').toEqual([]);
            else if (realId && kind !== 'question' && JSON.parse(await readRecord(id))['status'] !== 'pending')
              webPending.delete(which);
            await alive();
          },
        ),
        fuzzParameters('web chat API'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'POST /api/channels/web/links with random bodies: never a 5xx, a refusal names recipient',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            anyJson,
            fc.oneof(edgyString, anyJson).map((r) => ({ recipient: r })),
          ),
          async (b) => {
            const res = await call(`${gw.url}/api/channels/web/links`, {
              method: 'POST',
              headers: jsonHeaders,
              body: JSON.stringify(b),
            });
            expectWellRefused(res.status, res.body, `links ${JSON.stringify(b).slice(0, 300)}`);
          },
        ),
        fuzzParameters('POST /api/channels/web/links'),
      );
    },
    fuzzTimeout(),
  );
});

const PRESET = {
  ask: { question: 'Pay the deposit' },
  confirmation: {
    provider: 'stripe_checkout',
    reference: 'fz-1',
    return_url: 'https://shop.example/thanks',
    line_items: [{ price_data: { currency: 'eur', product_data: { name: 'D' }, unit_amount: 5000 }, quantity: 1 }],
  },
};

describe('the confirmation doors', () => {
  beforeAll(async () => {
    const res = await call(`${gw.url}/api/presets/deposit`, {
      method: 'PUT',
      headers: jsonHeaders,
      body: JSON.stringify(PRESET),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await settle(raw, VOLATILE);
  });

  it(
    'POST /api/presets/{name}/ask with random and mutated bodies: never a 5xx, a refusal stores nothing',
    async () => {
      const valid = { timeout: 60, group_id: 'fz' };
      const askFields = fc.record({
        field: fc.constantFrom('timeout', 'group_id', 'question', 'link', 'expiry_at', 'mode', 'run', 'payload'),
        value: fc.oneof(edgyNumber, edgyString, anyJson),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constant('deposit'), segment),
          fc.oneof(
            anyJson,
            fc.array(mutation, { minLength: 1, maxLength: 3 }).map((m) => mutate(valid, m)),
            fc
              .array(askFields, { maxLength: 3 })
              .map((sets) => Object.assign({}, ...sets.map((f) => ({ [f.field]: f.value })))),
          ),
          async (name, b) => {
            const before = await snapshot(raw, VOLATILE);
            const res = await call(`${gw.url}/api/presets/${name}/ask`, {
              method: 'POST',
              headers: jsonHeaders,
              body: JSON.stringify(b),
            });
            expectWellRefused(res.status, res.body, `preset ask ${name} ${JSON.stringify(b).slice(0, 300)}`);
            if (res.status >= 400)
              expect(await written(raw, before, VOLATILE), 'a refused preset ask wrote to Redis').toEqual([]);
            await alive();
          },
        ),
        fuzzParameters('POST /api/presets/{name}/ask'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'GET /api/presets/{name}, reconcile, the failed-job list and retry with random input: never a 5xx',
    async () => {
      const request = fc.oneof(
        segment.map((name) => ({ method: 'GET', path: `/api/presets/${name}`, body: undefined })),
        fc
          .oneof(
            anyJson,
            fc.oneof(edgyNumber, anyJson).map((h) => ({ lookback_hours: h })),
          )
          .map((b) => ({ method: 'POST', path: '/api/confirmations/reconcile', body: JSON.stringify(b) })),
        segment.map((q) => ({ method: 'GET', path: `/api/confirmations/failed?${q}=${q}`, body: undefined })),
        segment.map((job) => ({ method: 'POST', path: `/api/confirmations/failed/${job}/retry`, body: undefined })),
      );
      await fc.assert(
        fc.asyncProperty(request, fc.boolean(), async (r, withToken) => {
          const before = await snapshot(raw, VOLATILE);
          const headers: Record<string, string> = withToken
            ? { ...jsonHeaders }
            : { 'content-type': 'application/json' };
          const res = await call(`${gw.url}${r.path}`, {
            method: r.method,
            headers,
            ...(r.body === undefined ? {} : { body: r.body }),
          });
          expectWellRefused(res.status, res.body, `${r.method} ${r.path} ${r.body?.slice(0, 300) ?? ''}`);
          if (res.status >= 400)
            expect(await written(raw, before, VOLATILE), `a refused ${r.method} ${r.path} wrote to Redis`).toEqual([]);
        }),
        fuzzParameters('confirmation admin doors'),
      );
      await alive();
    },
    fuzzTimeout(),
  );
});
