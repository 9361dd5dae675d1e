import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/**
 * Fuzzing the API doors on the Redis store: random and mutated ask bodies (POST /api/interactions and
 * POST /api/runs), answers, callback posts (JSON and form-encoded), and random query strings and headers.
 * Never a 5xx, the gateway still alive after each case, a 4xx that names its field, and no half-written record: a
 * refused ask leaves Redis exactly as it was, a refused answer leaves the question exactly as it was.
 */

const TOKEN = 'fuzz-token-0123456789abcdef';
const SECRET = 'whsec_ZnV6ei1zZWNyZXQtZnV6ei1zZWNyZXQ=';
let redis: RedisServerHandle;
let raw: Redis;
let gw: TestGateway;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  raw = new Redis(redis.url);
  gw = await startTestGateway(
    {
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: '{fz}:',
      ASKGATE_TOKENS: JSON.stringify({
        [TOKEN]: { identity: 'fuzzer', scopes: ['read', 'write', 'answer', 'admin'], webhook_secret: SECRET },
      }),
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      INTERACTIONS_CALLBACK_RATE: '1000000/60',
    },
    // No workers: nothing writes to Redis between a case's before and after but the door under test.
    { workers: false },
  );
  // The queues write their metadata once, shortly after start: wait until Redis is still before comparing.
  let last = '';
  for (let i = 0; i < 50; i++) {
    const now = JSON.stringify([...(await snapshot())]);
    if (now === last && now !== '[]') break;
    last = now;
    await new Promise((r) => setTimeout(r, 200));
  }
});
afterAll(async () => {
  raw?.disconnect();
  await gw?.close();
  await redis?.stop();
});

const auth = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...auth, 'content-type': 'application/json' };
const inMinutes = (m: number): string => new Date(Date.now() + m * 60_000).toISOString();

/** Every key and its serialised value. */
async function snapshot(): Promise<Map<string, string | null>> {
  const keys = (await raw.keys('*')).sort();
  const pipeline = raw.pipeline();
  for (const key of keys) pipeline.dumpBuffer(key);
  const values = ((await pipeline.exec()) ?? []).map(([, v]) => (Buffer.isBuffer(v) ? v.toString('base64') : null));
  return new Map(keys.map((k, i) => [k, values[i] ?? null]));
}

/**
 * The keys a request added or changed since `before` (a key that vanished is not counted: the flood counters of
 * the callback door expire on their own while the fuzzer runs).
 */
async function written(before: Map<string, string | null>): Promise<string[]> {
  const after = await snapshot();
  return [...after].filter(([k, v]) => !before.has(k) || before.get(k) !== v).map(([k]) => k);
}

async function alive(): Promise<void> {
  expect((await call(`${gw.url}/healthz`, {})).status).toBe(200);
}

const run = (id: string, extra: Record<string, unknown> = {}) => ({
  run_id: id,
  resume: { webhook: 'https://example.test/resume' },
  ...extra,
});

/** Valid asks of every shape; the fuzzer mutates them into nearly valid ones. */
const VALID_ASKS: Record<string, unknown>[] = [
  { question: 'Ship it?', answer_format: 'confirm', timeout: 30 },
  { question: 'Pick one', answer_format: 'select', choices: ['a', 'b'], group_id: 'g' },
  { question: 'Say', answer_format: 'text', link: true },
  {
    question: 'Fill',
    answer_format: 'form',
    schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
  },
  { question: 'Pay', answer_format: 'external' },
  { question: 'Later', answer_format: 'confirm', mode: 'async', expiry_at: inMinutes(30), run: run('fz-run') },
  {
    question: 'Parent?',
    answer_format: 'text',
    to: 'caller',
    payload: { a: 1 },
    expiry_at: inMinutes(30),
    run: run('fz-child', { parent_run_id: 'fz-parent' }),
  },
  {
    question: 'Look',
    answer_format: 'confirm',
    media: [{ kind: 'link', url: 'https://example.test/a', caption: 'c' }],
  },
];

const ASK_FIELDS = [
  ...new Set(VALID_ASKS.flatMap((a) => Object.keys(a))),
  'on_expiry',
  'channel',
  'recipient',
  'verifier',
  'mode',
  'timeout',
  'expiry_at',
];

/** One field of a valid ask set to a hostile value: the likeliest way past the first checks to the deep ones. */
const fieldSet = fc.record({ field: fc.constantFrom(...ASK_FIELDS), value: fc.oneof(edgyNumber, edgyString, anyJson) });

const askBody = fc.oneof(
  anyJson,
  fc
    .tuple(fc.constantFrom(...VALID_ASKS), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([b, m]) => mutate(b, m)),
  fc
    .tuple(fc.constantFrom(...VALID_ASKS), fc.array(fieldSet, { minLength: 1, maxLength: 3 }))
    .map(([b, sets]) => Object.assign({ ...b }, ...sets.map((f) => ({ [f.field]: f.value })))),
);

describe('the ask doors', () => {
  it(
    'POST /api/interactions: never a 5xx, a refusal names its field and stores nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(askBody, async (body) => {
          const before = await snapshot();
          const res = await call(`${gw.url}/api/interactions`, {
            method: 'POST',
            headers: jsonHeaders,
            body: JSON.stringify(body),
          });
          expectWellRefused(res.status, res.body, `ask ${JSON.stringify(body).slice(0, 300)}`);
          if (res.status >= 400) expect(await written(before), 'a refused ask wrote to Redis').toEqual([]);
          await alive();
        }),
        fuzzParameters('POST /api/interactions'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'POST /api/runs: never a 5xx, a refusal names its field and stores nothing',
    async () => {
      const fanOut = { run: run('fz-fan'), asks: [VALID_ASKS[0], { ...VALID_ASKS[1], expiry_at: inMinutes(30) }] };
      const valid = {
        ...fanOut,
        asks: fanOut.asks.map((a) => ({ ...a, timeout: undefined, expiry_at: inMinutes(30) })),
      };
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            anyJson,
            fc.array(mutation, { minLength: 1, maxLength: 3 }).map((m) => mutate(valid, m)),
          ),
          async (body) => {
            const before = await snapshot();
            const res = await call(`${gw.url}/api/runs`, {
              method: 'POST',
              headers: jsonHeaders,
              body: JSON.stringify(body),
            });
            expectWellRefused(res.status, res.body, `runs ${JSON.stringify(body).slice(0, 300)}`);
            if (res.status >= 400) expect(await written(before), 'a refused park wrote to Redis').toEqual([]);
            await alive();
          },
        ),
        fuzzParameters('POST /api/runs'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'refuses raw bytes that are not JSON with a 400 naming the body, storing nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: 'binary' }),
          fc.constantFrom('application/json', 'text/plain', ''),
          async (text, type) => {
            const before = await snapshot();
            const headers: Record<string, string> = type === '' ? auth : { ...auth, 'content-type': type };
            const res = await call(`${gw.url}/api/interactions`, { method: 'POST', headers, body: text });
            expectWellRefused(res.status, res.body, `raw ask ${JSON.stringify(text)}`);
            if (res.status >= 400) expect(await written(before)).toEqual([]);
          },
        ),
        fuzzParameters('POST /api/interactions (raw bytes)'),
      );
    },
    fuzzTimeout(),
  );
});

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

describe('the preset and cancel doors', () => {
  const preset = {
    ask: { question: 'Pay the deposit' },
    confirmation: {
      provider: 'stripe_checkout',
      reference: 'fz-1',
      return_url: 'https://shop.example/thanks',
      line_items: [{ price_data: { currency: 'eur', product_data: { name: 'D' }, unit_amount: 5000 }, quantity: 1 }],
    },
  };

  it(
    'PUT /api/presets/{name}: never a 5xx, a refusal names its field and stores nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constant('deposit'), segment),
          fc.oneof(
            anyJson,
            fc.array(mutation, { minLength: 1, maxLength: 3 }).map((m) => mutate(preset, m)),
          ),
          async (name, body) => {
            const before = await snapshot();
            const res = await call(`${gw.url}/api/presets/${name}`, {
              method: 'PUT',
              headers: jsonHeaders,
              body: JSON.stringify(body),
            });
            expectWellRefused(res.status, res.body, `preset ${name} ${JSON.stringify(body).slice(0, 300)}`);
            if (res.status >= 400) expect(await written(before), 'a refused preset wrote to Redis').toEqual([]);
            await alive();
          },
        ),
        fuzzParameters('PUT /api/presets/{name}'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'DELETE /api/interactions/{id} with random ids: never a 5xx, nothing written on a refusal',
    async () => {
      await fc.assert(
        fc.asyncProperty(segment, async (id) => {
          const before = await snapshot();
          const res = await call(`${gw.url}/api/interactions/${id}`, { method: 'DELETE', headers: auth });
          expectWellRefused(res.status, res.body, `DELETE ${JSON.stringify(id)}`);
          if (res.status >= 400) expect(await written(before)).toEqual([]);
        }),
        fuzzParameters('DELETE /api/interactions/{id}'),
      );
    },
    fuzzTimeout(),
  );
});

/** A pending question per format, replaced once an accepted answer resolved it. */
const ANSWERABLE = VALID_ASKS.slice(0, 5);
const pending = new Map<number, { id: string; ticket: string | null }>();

async function pendingQuestion(which: number): Promise<{ id: string; ticket: string | null }> {
  const known = pending.get(which);
  if (known !== undefined) return known;
  const res = await call(`${gw.url}/api/interactions`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ ...ANSWERABLE[which], link: ANSWERABLE[which]?.['answer_format'] !== 'external' }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = res.body as Record<string, unknown>;
  const url = record['callback_url'] as string | undefined;
  const made = { id: record['id'] as string, ticket: url === undefined ? null : (url.split('/').pop() as string) };
  pending.set(which, made);
  return made;
}

const readRecord = async (id: string): Promise<string> =>
  JSON.stringify((await call(`${gw.url}/api/interactions/${id}`, { headers: auth })).body);

const answerValue = fc.oneof(
  anyJson,
  fc.constantFrom(true, false, 'a', 'b', { n: 1 }, { n: 0 }, { n: '1' }, 'ship', { approved: true }),
);

describe('the answer doors', () => {
  it(
    'POST /api/interactions/{id}/answer: never a 5xx; a refused answer changes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: ANSWERABLE.length - 1 }),
          fc.oneof(
            answerValue.map((a) => ({ answer: a })),
            fc.tuple(answerValue, edgyString, anyJson).map(([a, k, v]) => ({ answer: a, [k]: v })),
            anyJson,
          ),
          async (which, body) => {
            const { id } = await pendingQuestion(which);
            const before = await readRecord(id);
            const res = await call(`${gw.url}/api/interactions/${id}/answer`, {
              method: 'POST',
              headers: jsonHeaders,
              body: JSON.stringify(body),
            });
            expectWellRefused(res.status, res.body, `answer ${JSON.stringify(body).slice(0, 300)}`);
            if (res.status >= 400) expect(await readRecord(id), 'a refused answer changed the question').toBe(before);
            else pending.delete(which);
            await alive();
          },
        ),
        fuzzParameters('POST /api/interactions/{id}/answer'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'POST /api/interactions/callback/{ticket}, JSON and form-encoded: never a 5xx; a refusal changes nothing',
    async () => {
      const formBody = fc
        .array(fc.tuple(fc.oneof(edgyString, fc.constantFrom('answer', 'n', 'choice', 'text')), edgyString), {
          maxLength: 6,
        })
        .map((entries) => ({
          type: 'application/x-www-form-urlencoded',
          text: new URLSearchParams(entries).toString(),
        }));
      const jsonBody = fc
        .oneof(
          answerValue.map((a) => ({ answer: a })),
          anyJson,
        )
        .map((v) => ({ type: 'application/json', text: JSON.stringify(v) }));
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: ANSWERABLE.length - 1 }), fc.oneof(formBody, jsonBody), async (which, post) => {
          const { id, ticket } = await pendingQuestion(which);
          const before = await readRecord(id);
          const res = await call(`${gw.url}/api/interactions/callback/${ticket}`, {
            method: 'POST',
            headers: { 'content-type': post.type },
            body: post.text,
          });
          // The callback page answers a form post with HTML; a JSON post gets the JSON error body.
          if (typeof res.body === 'string') expect(res.status, res.text.slice(0, 200)).toBeLessThan(500);
          else expectWellRefused(res.status, res.body, `callback ${post.text.slice(0, 300)}`);
          if (res.status >= 400) expect(await readRecord(id), 'a refused callback changed the question').toBe(before);
          else if (JSON.parse(await readRecord(id))['status'] !== 'pending') pending.delete(which);
          await alive();
        }),
        fuzzParameters('POST /api/interactions/callback/{ticket}'),
      );
    },
    fuzzTimeout(),
  );
});

describe('query strings and headers', () => {
  const query = fc
    .array(
      fc.tuple(fc.oneof(edgyString, fc.constantFrom('status', 'limit', 'cursor', 'group_id', 'wait')), edgyString),
      {
        maxLength: 5,
      },
    )
    .map((entries) => new URLSearchParams(entries).toString());
  const headers = fc.dictionary(
    fc.constantFrom('authorization', 'content-type', 'accept', 'x-forwarded-for', 'content-encoding', 'if-none-match'),
    fc.oneof(
      fc.string({ unit: 'grapheme-ascii' }).map((s) => s.replace(/[\r\n]/g, '')),
      fc.constantFrom(`Bearer ${TOKEN}`, 'Bearer ', 'Basic Zm9vOmJhcg==', 'gzip', 'application/json; charset=utf-7'),
    ),
    { maxKeys: 4 },
  );

  it(
    'GET doors with random query strings and headers: never a 5xx',
    async () => {
      // An answered question, so a valid `wait` returns at once instead of holding the case.
      const asked = await call(`${gw.url}/api/interactions`, {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ question: 'q', answer_format: 'confirm' }),
      });
      const id = (asked.body as Record<string, string>)['id'] as string;
      await call(`${gw.url}/api/interactions/${id}/answer`, {
        method: 'POST',
        headers: jsonHeaders,
        body: '{"answer":true}',
      });
      const paths = [
        '/api/interactions',
        `/api/interactions/${id}`,
        `/api/interactions/${id}/result`,
        '/api/runs/fz-run',
      ];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...paths), query, headers, fc.boolean(), async (path, q, h, withToken) => {
          const sent = withToken ? { ...h, authorization: `Bearer ${TOKEN}` } : h;
          const res = await call(`${gw.url}${path}?${q}`, { headers: sent });
          expectWellRefused(res.status, res.body, `GET ${path}?${q} ${JSON.stringify(sent)}`);
        }),
        fuzzParameters('GET doors (query strings, headers)'),
      );
      await alive();
    },
    fuzzTimeout(),
  );

  it(
    'POST doors with random headers over a valid body: never a 5xx, nothing stored on a refusal',
    async () => {
      await fc.assert(
        fc.asyncProperty(headers, async (h) => {
          const before = await snapshot();
          const res = await call(`${gw.url}/api/interactions`, {
            method: 'POST',
            headers: h,
            body: JSON.stringify({ question: 'q', answer_format: 'confirm' }),
          });
          expectWellRefused(res.status, res.body, `POST with ${JSON.stringify(h)}`);
          if (res.status >= 400) expect(await written(before)).toEqual([]);
        }),
        fuzzParameters('POST /api/interactions (headers)'),
      );
      await alive();
    },
    fuzzTimeout(),
  );
});
