import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer as startRedis, type RedisServerHandle as RedisHandle } from '../helpers/redis-server.js';

/** The answer door, cancel, result waits and auth — the same suite on the in-memory store and on Redis. */

let redis: RedisHandle;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis.stop());

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`answering on the ${storeKind} store`, () => {
    let gw: TestGateway;
    let http: Api;
    beforeAll(async () => {
      gw = await startTestGateway(
        storeKind === 'redis' ? { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{t${Date.now()}}:` } : {},
      );
      http = api(gw.url, gw.token);
    });
    afterAll(async () => gw.close());

    const ask = async (body: Record<string, unknown>): Promise<string> => {
      const res = await http.post('/api/interactions', body);
      expect(res.status).toBe(201);
      return res.json['id'] as string;
    };

    it('answers a confirm once and reports already_answered after, keeping the first answer', async () => {
      const id = await ask({ question: 'Ship it?', answer_format: 'confirm' });
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).json).toEqual({
        status: 'answered',
      });
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: false })).json).toEqual({
        status: 'already_answered',
      });
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: 'not even a boolean' })).json).toEqual({
        status: 'already_answered',
      });
      const record = (await http.get(`/api/interactions/${id}`)).json;
      expect(record['status']).toBe('answered');
      expect(record['result']).toMatchObject({
        answer: true,
        reply_to: null,
        params: null,
        surface: 'api',
        answered_by: 'dev',
      });
    });

    it('records where an answer came from: api for a plain call, the named client (inbox, cli) for its own', async () => {
      const answerAs = async (headers: Record<string, string>, gzip = false): Promise<Record<string, unknown>> => {
        const id = await ask({ question: 'Where from?', answer_format: 'confirm' });
        const body = JSON.stringify({ answer: true });
        // A gzipped body is served by the express door, a plain one by the fast door ahead of it: both record alike.
        const res = await fetch(`${gw.url}/api/interactions/${id}/answer`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${gw.token}`,
            'content-type': 'application/json',
            ...(gzip ? { 'content-encoding': 'gzip' } : {}),
            ...headers,
          },
          body: gzip ? gzipSync(body) : body,
        });
        expect(res.status).toBe(200);
        const result = (await http.get(`/api/interactions/${id}`)).json['result'] as Record<string, unknown>;
        const events = (await http.get(`/api/interactions/${id}/events`)).json['items'] as Array<
          Record<string, unknown>
        >;
        expect(events.find((e) => e['type'] === 'answered')?.['surface']).toBe(result['surface']);
        return result;
      };
      for (const gzip of [false, true]) {
        expect(await answerAs({}, gzip)).toMatchObject({ surface: 'api', answered_by: 'dev' });
        expect(await answerAs({ 'x-askgate-client': 'cli' }, gzip)).toMatchObject({ surface: 'cli' });
        expect(await answerAs({ 'x-askgate-client': 'inbox' }, gzip)).toMatchObject({ surface: 'inbox' });
        // Any other name is a plain API call: the header labels, it grants nothing.
        expect(await answerAs({ 'x-askgate-client': 'telegram' }, gzip)).toMatchObject({ surface: 'api' });
      }
    });

    it('lets exactly one of 50 concurrent answers of different values win', async () => {
      const choices = Array.from({ length: 50 }, (_, i) => `choice-${i}`);
      const id = await ask({ question: 'Which?', answer_format: 'select', choices });
      const results = await Promise.all(choices.map((c) => http.post(`/api/interactions/${id}/answer`, { answer: c })));
      const winners = results
        .map((r, i) => ({ status: r.json['status'], choice: choices[i] }))
        .filter((r) => r.status === 'answered');
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.json['status'] === 'already_answered')).toHaveLength(49);
      const record = (await http.get(`/api/interactions/${id}`)).json;
      expect((record['result'] as Record<string, unknown>)['answer']).toBe(winners[0]?.choice);
    });

    it('refuses an answer that does not match the schema, naming the path, and stays pending', async () => {
      const schema = {
        type: 'object',
        properties: {
          count: { type: 'integer', maximum: 10 },
          address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        required: ['count'],
      };
      const id = await ask({ question: 'How many?', answer_format: 'form', schema });
      const tooMany = await http.post(`/api/interactions/${id}/answer`, { answer: { count: 11 } });
      expect(tooMany.status).toBe(400);
      expect(tooMany.json).toMatchObject({ error: 'invalid_answer', field: 'count' });
      expect(tooMany.json['message']).toMatch(/^answer does not match schema at count: /);
      const missing = await http.post(`/api/interactions/${id}/answer`, { answer: { count: 1, address: {} } });
      expect(missing.json).toMatchObject({ error: 'invalid_answer', field: 'address.city' });
      expect((await http.get(`/api/interactions/${id}`)).json['status']).toBe('pending');
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: { count: 3 } })).json).toEqual({
        status: 'answered',
      });
    });

    it('reports every violation of a form answer at once, the first as its field, and names a wrong type answer', async () => {
      const schema = {
        type: 'object',
        properties: {
          amount: { type: 'integer', minimum: 1 },
          name: { type: 'string' },
          email: { type: 'string', format: 'email' },
        },
        required: ['amount', 'name'],
      };
      const id = await ask({ question: 'Refund?', answer_format: 'form', schema });
      const three = await http.post(`/api/interactions/${id}/answer`, { answer: { amount: 0, email: 'nope' } });
      expect(three.status).toBe(400);
      expect(three.json).toEqual({
        error: 'invalid_answer',
        field: 'name',
        message:
          'answer does not match schema at name: is required; at amount: must be >= 1; at email: must match format "email"',
        errors: [
          { field: 'name', reason: 'is required' },
          { field: 'amount', reason: 'must be >= 1' },
          { field: 'email', reason: 'must match format "email"' },
        ],
      });
      // An answer of the wrong type is about the answer itself, and says so.
      const wrongType = await http.post(`/api/interactions/${id}/answer`, { answer: 'refund it' });
      expect(wrongType.json).toEqual({
        error: 'invalid_answer',
        field: 'answer',
        message: 'answer does not match schema at answer: must be object',
        errors: [{ field: 'answer', reason: 'must be object' }],
      });
      const confirm = await ask({ question: 'OK?', answer_format: 'confirm' });
      expect((await http.post(`/api/interactions/${confirm}/answer`, { answer: 'yes' })).json).toMatchObject({
        field: 'answer',
        message: 'answer does not match schema at answer: must be boolean',
      });
      expect((await http.get(`/api/interactions/${id}`)).json['status']).toBe('pending');
    });

    it('checks each format: text is a non-empty string, select one of the choices, confirm a boolean', async () => {
      const text = await ask({ question: 'Why?', answer_format: 'text' });
      expect((await http.post(`/api/interactions/${text}/answer`, { answer: 3 })).status).toBe(400);
      expect((await http.post(`/api/interactions/${text}/answer`, { answer: '' })).status).toBe(400);
      const select = await ask({ question: 'Which?', answer_format: 'select', choices: ['red', 'blue'] });
      const wrong = await http.post(`/api/interactions/${select}/answer`, { answer: 'green' });
      expect(wrong.status).toBe(400);
      expect(wrong.json['message']).toMatch(/"red", "blue"/);
      const confirm = await ask({ question: 'OK?', answer_format: 'confirm' });
      expect((await http.post(`/api/interactions/${confirm}/answer`, { answer: 'yes' })).status).toBe(400);
      expect((await http.post(`/api/interactions/${text}/answer`, { answer: 'because' })).json['status']).toBe(
        'answered',
      );
    });

    it('drops a field hidden by visibleWhen from the requirement and from the stored answer', async () => {
      const schema = {
        type: 'object',
        properties: {
          ship: { type: 'boolean' },
          address: { type: 'string', visibleWhen: { field: 'ship', equals: true } },
        },
        required: ['ship', 'address'],
      };
      const id = await ask({ question: 'Ship?', answer_format: 'form', schema });
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: { ship: true } })).json['field']).toBe(
        'address',
      );
      expect(
        (await http.post(`/api/interactions/${id}/answer`, { answer: { ship: false, address: 'ignored' } })).json[
          'status'
        ],
      ).toBe('answered');
      const record = (await http.get(`/api/interactions/${id}`)).json;
      expect((record['result'] as Record<string, unknown>)['answer']).toEqual({ ship: false });
    });

    it('expires a sync ask at its timeout: result wakes, answers get 410', async () => {
      const id = await ask({ question: 'Quick?', answer_format: 'confirm', timeout: 0.5 });
      const started = Date.now();
      const waited = await http.get(`/api/interactions/${id}/result?wait=10`);
      expect(waited.json['status']).toBe('expired');
      expect(Date.now() - started).toBeLessThan(9000);
      const late = await http.post(`/api/interactions/${id}/answer`, { answer: true });
      expect(late.status).toBe(410);
      expect(late.json['error']).toBe('gone');
    });

    it('wakes a result wait when the answer arrives', async () => {
      const id = await ask({ question: 'Wait for me?', answer_format: 'confirm' });
      const waiting = http.get(`/api/interactions/${id}/result?wait=20`);
      await new Promise((r) => setTimeout(r, 200));
      await http.post(`/api/interactions/${id}/answer`, { answer: false });
      const res = await waiting;
      expect(res.json['status']).toBe('answered');
      expect((res.json['result'] as Record<string, unknown>)['answer']).toBe(false);
    });

    it('returns the pending record when the wait runs out, and refuses wait outside 0..60', async () => {
      const id = await ask({ question: 'Still there?', answer_format: 'confirm' });
      expect((await http.get(`/api/interactions/${id}/result?wait=1`)).json['status']).toBe('pending');
      const bad = await http.get(`/api/interactions/${id}/result?wait=61`);
      expect(bad.status).toBe(400);
      expect(bad.json['field']).toBe('wait');
    });

    it('cancels a pending ask for its asker: 200, then answers are 410 and a second cancel 409', async () => {
      const id = await ask({ question: 'Cancel me', answer_format: 'text' });
      const cancelled = await http.delete(`/api/interactions/${id}`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json['status']).toBe('cancelled');
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: 'late' })).status).toBe(410);
      expect((await http.delete(`/api/interactions/${id}`)).status).toBe(409);
    });

    it('answers 404 for an unknown interaction on every door', async () => {
      expect((await http.get('/api/interactions/nope')).status).toBe(404);
      expect((await http.post('/api/interactions/nope/answer', { answer: true })).status).toBe(404);
      expect((await http.delete('/api/interactions/nope')).status).toBe(404);
      expect((await http.get('/api/interactions/nope/result?wait=0')).status).toBe(404);
    });

    it('pages the pending list oldest first with a cursor that survives changes between pages', async () => {
      const group = `g-${storeKind}-${Date.now()}`;
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await ask({ question: `q${i}`, answer_format: 'confirm', group_id: group }));
      const first = await http.get(`/api/interactions?status=pending&limit=3&group_id=${group}`);
      expect((first.json['items'] as Array<{ id: string }>).map((r) => r.id)).toEqual(ids.slice(0, 3));
      // Between pages: answer one already seen and one not yet seen, and add a new one.
      await http.post(`/api/interactions/${ids[1]}/answer`, { answer: true });
      await http.post(`/api/interactions/${ids[4]}/answer`, { answer: true });
      const added = await ask({ question: 'late', answer_format: 'confirm', group_id: group });
      const seen: string[] = [];
      let cursor = first.json['next_cursor'] as string | null;
      while (cursor !== null) {
        const page = await http.get(`/api/interactions?limit=3&group_id=${group}&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...(page.json['items'] as Array<{ id: string }>).map((r) => r.id));
        cursor = page.json['next_cursor'] as string | null;
      }
      expect(seen).toEqual([ids[3], ids[5], ids[6], added]);
      const badLimit = await http.get('/api/interactions?limit=201');
      expect(badLimit.status).toBe(400);
      expect(badLimit.json['field']).toBe('limit');
    });

    it('reports readiness of the store', async () => {
      const ready = await http.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json['store']).toBe(storeKind);
    });
  });
}

describe('authentication and scopes', () => {
  let gw: TestGateway;
  const tokens = {
    'reader-token-0123456789': { identity: 'reader', scopes: ['read'] },
    'writer-token-0123456789': { identity: 'writer', scopes: ['read', 'write'] },
    'other-writer-0123456789': { identity: 'other', scopes: ['write'] },
    'answerer-token-01234567': { identity: 'answerer', scopes: ['answer'] },
  };
  beforeAll(async () => {
    gw = await startTestGateway({ ASKGATE_TOKENS: JSON.stringify(tokens) });
  });
  afterAll(async () => gw.close());

  it('refuses a missing or unknown token with 401 and a token without the scope with 403', async () => {
    const anon = await fetch(`${gw.url}/api/interactions`);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as Record<string, unknown>)['error']).toBe('unauthorized');
    expect((await api(gw.url, 'not-a-known-token-000000').get('/api/interactions')).status).toBe(401);
    const reader = api(gw.url, 'reader-token-0123456789');
    const denied = await reader.post('/api/interactions', { question: 'q', answer_format: 'confirm' });
    expect(denied.status).toBe(403);
    expect(denied.json['error']).toBe('forbidden');
    expect(await reader.get('/api/interactions').then((r) => r.status)).toBe(200);
  });

  it('records the asker and the answerer by identity; only the asker may cancel', async () => {
    const writer = api(gw.url, 'writer-token-0123456789');
    const created = await writer.post('/api/interactions', { question: 'q', answer_format: 'confirm' });
    expect(created.json['asked_by']).toBe('writer');
    const id = created.json['id'] as string;
    expect((await api(gw.url, 'other-writer-0123456789').delete(`/api/interactions/${id}`)).status).toBe(403);
    expect((await writer.post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(403);
    await api(gw.url, 'answerer-token-01234567').post(`/api/interactions/${id}/answer`, { answer: true });
    const record = (await writer.get(`/api/interactions/${id}`)).json;
    expect((record['result'] as Record<string, unknown>)['answered_by']).toBe('answerer');
  });

  it('serves liveness and metrics without a token, counting asks and answers per format and surface', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/askgate_asks_total\{format="confirm",channel="inbox",mode="sync"\} [1-9]/);
    expect(metrics).toMatch(/askgate_answers_total\{format="confirm",surface="api"\} [1-9]/);
    expect(metrics).toMatch(/askgate_time_to_answer_seconds_bucket/);
  });
});
