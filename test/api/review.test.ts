import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer as startRedis, type RedisServerHandle as RedisHandle } from '../helpers/redis-server.js';

/**
 * The review format through the real doors: the ask's refusals (each naming its field, nothing stored), and each
 * decision accepted and refused at the answer door, on the in-memory store and on a real Redis.
 */

const ACTION = {
  name: 'send_email',
  args: { to: 'ada@example.com', subject: 'Quarterly report', body: 'Attached.' },
  description: 'Sends one email from the team account.',
};
const SCHEMA = {
  type: 'object',
  required: ['to', 'subject'],
  additionalProperties: false,
  properties: {
    to: { type: 'string', format: 'email' },
    subject: { type: 'string', minLength: 1, maxLength: 80 },
    body: { type: 'string' },
  },
};
const review = { question: 'May I send this email?', answer_format: 'review', action: ACTION };

let redis: RedisHandle;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis.stop());

describe('asking a review', () => {
  let gw: TestGateway;
  let http: Api;
  beforeAll(async () => {
    gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
    http = api(gw.url, gw.token);
    const deliver = async (): Promise<Record<string, string>> => ({ message_id: '1' });
    // One channel that shows reviews (with forms), one that shows none: enough for the channel rules.
    gw.gateway.channels.register({
      name: 'reviewing',
      capabilities: { supportsFormDelivery: true, supportsReview: true },
      deliver,
    });
    gw.gateway.channels.register({ name: 'plain', capabilities: { supportsFormDelivery: true }, deliver });
  });
  afterAll(async () => gw.close());

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['a review without action', { question: 'q', answer_format: 'review' }, 'action', /required/],
    ['an action that is not an object', { ...review, action: 'send_email' }, 'action', /object/],
    ['an action without name', { ...review, action: { args: {} } }, 'action.name', /1\.\.200/],
    ['an empty action name', { ...review, action: { name: '', args: {} } }, 'action.name', /1\.\.200/],
    ['an action name over 200', { ...review, action: { name: 'n'.repeat(201), args: {} } }, 'action.name', /200/],
    ['action args that are a list', { ...review, action: { name: 'x', args: [1] } }, 'action.args', /object/],
    ['action args missing', { ...review, action: { name: 'x' } }, 'action.args', /object/],
    [
      'a description over 4096',
      { ...review, action: { name: 'x', args: {}, description: 'd'.repeat(4097) } },
      'action.description',
      /4096/,
    ],
    ['an unknown action member', { ...review, action: { name: 'x', args: {}, tool: 1 } }, 'action.tool', /not an/],
    ['an unknown decision', { ...review, decisions: ['approve', 'maybe'] }, 'decisions[1]', /one of/],
    ['a repeated decision', { ...review, decisions: ['reject', 'reject'] }, 'decisions[1]', /repeats/],
    ['no decisions', { ...review, decisions: [] }, 'decisions', /non-empty/],
    ['a schema not of type object', { ...review, schema: { type: 'string' } }, 'schema', /type/],
    [
      'proposed args the schema refuses',
      { ...review, schema: { ...SCHEMA, properties: { ...SCHEMA.properties, subject: { type: 'integer' } } } },
      'action.args.subject',
      /must be integer/,
    ],
    ['choices on a review', { ...review, choices: ['a'] }, 'choices', /select/],
    ['action on a confirm', { question: 'q', answer_format: 'confirm', action: ACTION }, 'action', /review/],
    [
      'decisions on a text ask',
      { question: 'q', answer_format: 'text', decisions: ['approve'] },
      'decisions',
      /review/,
    ],
    ['quorum on a review', { ...review, approvers: ['a', 'b'], quorum: { approve: 2 } }, 'quorum', /confirm/],
    [
      'edit without schema to a channel',
      { ...review, decisions: ['approve', 'edit'], channel: 'reviewing', recipient: '42' },
      'schema',
      /edit/,
    ],
    [
      'edit without schema to a channel through deliver',
      { ...review, decisions: ['edit'], deliver: [{ channel: 'reviewing', recipient: '42' }] },
      'schema',
      /edit/,
    ],
    [
      'an edit schema outside the channel subset',
      {
        ...review,
        action: { name: 'x', args: {} },
        schema: { type: 'object', properties: { deep: { type: 'object', properties: {} } } },
        channel: 'reviewing',
        recipient: '42',
      },
      'schema.properties.deep',
      /channel/,
    ],
    ['a review to a channel that shows none', { ...review, channel: 'plain', recipient: '42' }, 'channel', /review/],
  ];

  it.each(cases)('refuses %s with 400 naming the field, storing nothing', async (_name, body, field, words) => {
    const res = await http.post('/api/interactions', body);
    expect(res.status).toBe(400);
    expect(res.json['error']).toBe('invalid_request');
    expect(res.json['field']).toBe(field);
    expect(res.json['message']).toMatch(words);
    expect((await http.get('/api/interactions?status=pending')).json['items']).toEqual([]);
  });

  it('keeps the action and the default decisions on the record: approve, edit, reject with a schema', async () => {
    const res = await http.post('/api/interactions', { ...review, schema: SCHEMA, timeout: 60 });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ answer_format: 'review', action: ACTION, schema: SCHEMA });
    expect(res.json['decisions']).toEqual(['approve', 'edit', 'reject']);
    const plain = await http.post('/api/interactions', { ...review, timeout: 60 });
    expect(plain.json['decisions']).toEqual(['approve', 'reject']);
    await http.delete(`/api/interactions/${res.json['id']}`);
    await http.delete(`/api/interactions/${plain.json['id']}`);
  });

  it('takes edit without schema on the inbox, and reject/approve only to a channel without schema', async () => {
    const inbox = await http.post('/api/interactions', { ...review, decisions: ['edit', 'respond'], timeout: 60 });
    expect(inbox.status).toBe(201);
    expect(inbox.json['decisions']).toEqual(['edit', 'respond']);
    const chat = await http.post('/api/interactions', {
      ...review,
      channel: 'reviewing',
      recipient: '42',
      timeout: 60,
    });
    expect(chat.status).toBe(201);
    expect(chat.json['decisions']).toEqual(['approve', 'reject']);
    await http.delete(`/api/interactions/${inbox.json['id']}`);
    await http.delete(`/api/interactions/${chat.json['id']}`);
  });
});

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`answering a review on the ${storeKind} store`, () => {
    let gw: TestGateway;
    let http: Api;
    beforeAll(async () => {
      gw = await startTestGateway(
        storeKind === 'redis' ? { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{rv${Date.now()}}:` } : {},
      );
      http = api(gw.url, gw.token);
    });
    afterAll(async () => gw.close());

    const ask = async (extra: Record<string, unknown> = {}): Promise<string> => {
      const res = await http.post('/api/interactions', { ...review, schema: SCHEMA, timeout: 120, ...extra });
      expect(res.status).toBe(201);
      return res.json['id'] as string;
    };
    const answer = (id: string, value: unknown) => http.post(`/api/interactions/${id}/answer`, { answer: value });
    const stored = async (id: string) => (await http.get(`/api/interactions/${id}`)).json;

    it('reads the action and decisions back from the store as asked', async () => {
      const id = await ask({ decisions: ['respond', 'approve'] });
      const record = await stored(id);
      expect(record['action']).toEqual(ACTION);
      expect(record['decisions']).toEqual(['respond', 'approve']);
      expect(record['schema']).toEqual(SCHEMA);
    });

    it('accepts approve and keeps exactly {"decision": "approve"}; a second answer changes nothing', async () => {
      const id = await ask();
      expect((await answer(id, { decision: 'approve' })).json).toEqual({ status: 'answered' });
      expect((await answer(id, { decision: 'reject' })).json).toEqual({ status: 'already_answered' });
      expect((await stored(id))['result']).toMatchObject({ answer: { decision: 'approve' }, answered_by: 'dev' });
    });

    it('accepts edit with args the schema takes, storing the edited args', async () => {
      const id = await ask();
      const args = { to: 'grace@example.com', subject: 'Q3 report' };
      expect((await answer(id, { decision: 'edit', args })).json).toEqual({ status: 'answered' });
      expect((await stored(id))['result']).toMatchObject({ answer: { decision: 'edit', args } });
    });

    it('refuses edited args with every violation as args.<path>, the question still pending', async () => {
      const id = await ask();
      const res = await answer(id, {
        decision: 'edit',
        args: { to: 'not an address', subject: '', cc: 'x@example.com' },
      });
      expect(res.status).toBe(400);
      expect(res.json['error']).toBe('invalid_answer');
      expect(res.json['field']).toBe('args.cc');
      expect(res.json['errors']).toEqual([
        { field: 'args.cc', reason: 'is not an allowed field' },
        { field: 'args.to', reason: 'must match format "email"' },
        { field: 'args.subject', reason: 'must NOT have fewer than 1 characters' },
      ]);
      expect((await stored(id))['status']).toBe('pending');
      const missing = await answer(id, { decision: 'edit', args: { subject: 'Hi' } });
      expect(missing.json).toMatchObject({ field: 'args.to', errors: [{ field: 'args.to', reason: 'is required' }] });
      const none = await answer(id, { decision: 'edit' });
      expect(none.json).toMatchObject({ error: 'invalid_answer', field: 'args' });
      const list = await answer(id, { decision: 'edit', args: ['a'] });
      expect(list.json).toMatchObject({ error: 'invalid_answer', field: 'args' });
      expect((await stored(id))['status']).toBe('pending');
    });

    it('accepts reject with and without a message', async () => {
      const bare = await ask();
      expect((await answer(bare, { decision: 'reject' })).json).toEqual({ status: 'answered' });
      expect(((await stored(bare))['result'] as Record<string, unknown>)['answer']).toEqual({ decision: 'reject' });
      const said = await ask();
      expect((await answer(said, { decision: 'reject', message: 'Not before Monday.' })).status).toBe(200);
      expect(((await stored(said))['result'] as Record<string, unknown>)['answer']).toEqual({
        decision: 'reject',
        message: 'Not before Monday.',
      });
    });

    it('accepts respond with a message and refuses it without one', async () => {
      const id = await ask({ decisions: ['approve', 'respond'] });
      const without = await answer(id, { decision: 'respond' });
      expect(without.status).toBe(400);
      expect(without.json).toMatchObject({ error: 'invalid_answer', field: 'message' });
      const blank = await answer(id, { decision: 'respond', message: '   ' });
      expect(blank.json).toMatchObject({ error: 'invalid_answer', field: 'message' });
      expect((await answer(id, { decision: 'respond', message: 'Use the staging list.' })).status).toBe(200);
      expect(((await stored(id))['result'] as Record<string, unknown>)['answer']).toEqual({
        decision: 'respond',
        message: 'Use the staging list.',
      });
    });

    it('refuses a decision the review does not offer, naming decision, and stays pending', async () => {
      const id = await ask({ decisions: ['approve', 'reject'] });
      for (const value of [{ decision: 'edit', args: { to: 'a@example.com', subject: 's' } }, { decision: 'maybe' }]) {
        const res = await answer(id, value);
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ error: 'invalid_answer', field: 'decision' });
        expect(res.json['message']).toMatch(/"approve", "reject"/);
      }
      expect((await answer(id, {})).json).toMatchObject({ field: 'decision' });
      expect((await stored(id))['status']).toBe('pending');
    });

    it('refuses an answer that is not a decision object, and a member another decision takes', async () => {
      const id = await ask();
      for (const value of [true, 'approve', ['approve']]) {
        const res = await answer(id, value);
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ error: 'invalid_answer', field: 'answer' });
      }
      const extra = await answer(id, { decision: 'approve', message: 'fine' });
      expect(extra.json).toMatchObject({ error: 'invalid_answer', field: 'message' });
      const argsOnReject = await answer(id, { decision: 'reject', args: {} });
      expect(argsOnReject.json).toMatchObject({ error: 'invalid_answer', field: 'args' });
      expect((await stored(id))['status']).toBe('pending');
    });
  });
}
