import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredInteraction } from '../../src/core/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * One question on several surfaces, approvers and quorum through the doors: the refusals of bad input (field named,
 * nothing stored), delivery to every surface with a failure on some recorded and on all a 502, the outcome edit on
 * every surface, and approvers' votes (403 not_an_approver, 200 voted) recorded in the trail.
 */

const tokens = {
  'asker-token-0123456789ab': { identity: 'asker', scopes: ['read', 'write'] },
  'ada-token-0123456789abcd': { identity: 'ada', scopes: ['answer', 'read'] },
  'bob-token-0123456789abcd': { identity: 'bob', scopes: ['answer', 'read'] },
  'eve-token-0123456789abcd': { identity: 'eve', scopes: ['answer', 'read'] },
};
const [ASKER, ADA, BOB, EVE] = Object.keys(tokens) as [string, string, string, string];

let gw: TestGateway;
/** Every send and every outcome edit the in-process channels saw, as the surface's view of the record. */
const sent: StoredInteraction[] = [];
const edited: StoredInteraction[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    ASKGATE_TOKENS: JSON.stringify(tokens),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
  });
  const channel = (name: string, fails: (recipient: string | null) => boolean) => ({
    name,
    capabilities: { supportsFormDelivery: false },
    async deliver(interaction: StoredInteraction): Promise<Record<string, string>> {
      if (fails(interaction.recipient)) throw Object.assign(new Error('chat not found'), { code: '400' });
      sent.push(interaction);
      return { message_id: `${name}-${interaction.recipient}`, ref: `${name}:${interaction.recipient}` };
    },
    async showOutcome(interaction: StoredInteraction): Promise<void> {
      edited.push(interaction);
    },
  });
  gw.gateway.channels.register(channel('alpha', (r) => r === 'gone'));
  gw.gateway.channels.register(channel('beta', (r) => r === 'gone'));
});
afterAll(async () => gw.close());

const asker = () => api(gw.url, ASKER);
async function pendingCount(): Promise<number> {
  return ((await asker().get('/api/interactions?status=pending')).json['items'] as unknown[]).length;
}

const confirm = { question: 'Ship it?', answer_format: 'confirm' };
const two = [
  { channel: 'alpha', recipient: 'a1' },
  { channel: 'beta', recipient: 'b1' },
];

describe('refusals of deliver, approvers and quorum', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['deliver with channel', { ...confirm, deliver: two, channel: 'alpha' }, 'deliver'],
    ['deliver with recipient', { ...confirm, deliver: two, recipient: 'x' }, 'deliver'],
    ['an empty deliver', { ...confirm, deliver: [] }, 'deliver'],
    [
      'more than 10 surfaces',
      { ...confirm, deliver: Array.from({ length: 11 }, (_, i) => ({ channel: 'alpha', recipient: `r${i}` })) },
      'deliver',
    ],
    ['a duplicate surface', { ...confirm, deliver: [...two, { channel: 'alpha', recipient: 'a1' }] }, 'deliver[2]'],
    [
      'an unknown channel inside deliver',
      { ...confirm, deliver: [...two, { channel: 'nope', recipient: 'x' }] },
      'deliver[2].channel',
    ],
    ['a surface without recipient', { ...confirm, deliver: [{ channel: 'alpha' }] }, 'deliver[0].recipient'],
    ['a stray surface field', { ...confirm, deliver: [{ channel: 'alpha', recipient: 'a', x: 1 }] }, 'deliver[0].x'],
    ['empty approvers', { ...confirm, approvers: [] }, 'approvers'],
    ['a repeated approver', { ...confirm, approvers: ['ada', 'ada'] }, 'approvers[1]'],
    ['quorum without approvers', { ...confirm, quorum: { approve: 1 } }, 'quorum'],
    [
      'quorum on a text question',
      { question: 'q', answer_format: 'text', approvers: ['ada'], quorum: { approve: 1 } },
      'quorum',
    ],
    [
      'quorum larger than the approvers',
      { ...confirm, approvers: ['ada', 'bob'], quorum: { approve: 3 } },
      'quorum.approve',
    ],
    [
      'a reject quorum larger than the approvers',
      { ...confirm, approvers: ['ada'], quorum: { approve: 1, reject: 2 } },
      'quorum.reject',
    ],
  ];
  for (const [name, body, field] of cases) {
    it(`refuses ${name} with 400 naming ${field}, storing nothing`, async () => {
      const before = await pendingCount();
      const res = await asker().post('/api/interactions', body);
      expect(res.status).toBe(400);
      expect(res.json['field']).toBe(field);
      expect(await pendingCount()).toBe(before);
    });
  }
});

describe('deliver', () => {
  it('sends one question to every surface; a reply finds it on either; both show the outcome', async () => {
    const res = await asker().post('/api/interactions', { ...confirm, deliver: two, timeout: 60 });
    expect(res.status).toBe(201);
    const id = res.json['id'] as string;
    expect(sent.filter((s) => s.id === id).map((s) => [s.channel, s.recipient])).toEqual([
      ['alpha', 'a1'],
      ['beta', 'b1'],
    ]);
    const record = (await asker().get(`/api/interactions/${id}`)).json;
    expect(record['deliver']).toEqual(two);
    expect(record['deliveries']).toEqual([
      { channel: 'alpha', recipient: 'a1', message_id: 'alpha-a1', status: 'sent' },
      { channel: 'beta', recipient: 'b1', message_id: 'beta-b1', status: 'sent' },
    ]);
    expect((await gw.gateway.store.findByDelivery('beta', 'beta:b1'))?.id).toBe(id);
    expect((await api(gw.url, ADA).post(`/api/interactions/${id}/answer`, { answer: true })).json).toEqual({
      status: 'answered',
    });
    await expect.poll(() => edited.filter((e) => e.id === id).length, { timeout: 10_000 }).toBe(2);
    const views = edited.filter((e) => e.id === id);
    expect(views.map((v) => [v.channel, v.delivery?.['ref'], v.status])).toEqual(
      expect.arrayContaining([
        ['alpha', 'alpha:a1', 'answered'],
        ['beta', 'beta:b1', 'answered'],
      ]),
    );
  });

  it('records a surface that fails and keeps the question; only every surface failing is a 502', async () => {
    const partial = await asker().post('/api/interactions', {
      ...confirm,
      timeout: 60,
      deliver: [
        { channel: 'alpha', recipient: 'a2' },
        { channel: 'beta', recipient: 'gone' },
      ],
    });
    expect(partial.status).toBe(201);
    const record = (await asker().get(`/api/interactions/${partial.json['id'] as string}`)).json;
    expect(record['status']).toBe('pending');
    expect(record['deliveries']).toEqual([
      { channel: 'alpha', recipient: 'a2', message_id: 'alpha-a2', status: 'sent' },
      {
        channel: 'beta',
        recipient: 'gone',
        message_id: '',
        status: 'failed',
        error: { code: '400', message: 'chat not found' },
      },
    ]);
    const before = await pendingCount();
    const all = await asker().post('/api/interactions', {
      ...confirm,
      timeout: 60,
      deliver: [
        { channel: 'alpha', recipient: 'gone' },
        { channel: 'beta', recipient: 'gone' },
      ],
    });
    expect(all.status).toBe(502);
    expect(await pendingCount()).toBe(before);
  });
});

describe('approvers and quorum', () => {
  it('refuses a non-approver with 403 (recorded), counts votes once, resolves at the quorum', async () => {
    const res = await asker().post('/api/interactions', {
      ...confirm,
      timeout: 60,
      approvers: ['ada', 'bob'],
      quorum: { approve: 2 },
    });
    const id = res.json['id'] as string;
    const answerAs = (token: string, answer: unknown) =>
      api(gw.url, token).post(`/api/interactions/${id}/answer`, { answer });
    const refused = await answerAs(EVE, true);
    expect(refused.status).toBe(403);
    expect(refused.json['error']).toBe('not_an_approver');
    expect((await answerAs(ADA, true)).json).toEqual({ status: 'voted' });
    expect((await answerAs(ADA, true)).json).toEqual({ status: 'voted' });
    const midway = (await asker().get(`/api/interactions/${id}`)).json;
    expect(midway['status']).toBe('pending');
    expect((midway['votes'] as Array<{ by: string }>).map((v) => v.by)).toEqual(['ada']);
    expect((await answerAs(BOB, true)).json).toEqual({ status: 'answered' });
    expect((await answerAs(EVE, false)).json).toEqual({ status: 'already_answered' });
    const done = (await asker().get(`/api/interactions/${id}`)).json;
    expect(done['result']).toMatchObject({ answer: true, answered_by: 'bob' });
    const events = (await asker().get(`/api/interactions/${id}/events`)).json['items'] as Array<
      Record<string, unknown>
    >;
    expect(events.map((e) => [e['type'], e['by'] ?? null])).toEqual([
      ['created', expect.anything()],
      ['answer_refused', 'eve'],
      ['vote', 'ada'],
      ['vote', 'bob'],
      ['answered', 'bob'],
    ]);
  });

  it('without a quorum, the first approver answers and anyone else is refused', async () => {
    const res = await asker().post('/api/interactions', {
      question: 'Name?',
      answer_format: 'text',
      timeout: 60,
      approvers: ['bob'],
    });
    const id = res.json['id'] as string;
    expect((await api(gw.url, ADA).post(`/api/interactions/${id}/answer`, { answer: 'x' })).status).toBe(403);
    expect((await api(gw.url, BOB).post(`/api/interactions/${id}/answer`, { answer: 'y' })).json).toEqual({
      status: 'answered',
    });
  });
});
