import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Every refusal rule of the ask body: the bad input gets its status, the error names the field, and nothing is
 * stored (the pending list stays empty and no event is emitted).
 */

let gw: TestGateway;
const future = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();
const run = { run_id: 'r1', resume: { webhook: 'https://example.test/resume' } };

beforeAll(async () => {
  gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
  // A channel that cannot deliver forms, and one that can: enough to exercise the channel rules of the core.
  const deliver = async (): Promise<Record<string, string>> => ({ message_id: '1' });
  gw.gateway.channels.register({ name: 'plain', capabilities: { supportsFormDelivery: false }, deliver });
  gw.gateway.channels.register({ name: 'formy', capabilities: { supportsFormDelivery: true }, deliver });
});
afterAll(async () => gw.close());

async function post(
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}/api/interactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.token}`, 'content-type': contentType },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function pendingCount(): Promise<number> {
  const res = await fetch(`${gw.url}/api/interactions?status=pending`, {
    headers: { authorization: `Bearer ${gw.token}` },
  });
  return ((await res.json()) as { items: unknown[] }).items.length;
}

const base = { question: 'Ship it?', answer_format: 'confirm' };
const sel = { question: 'Pick', answer_format: 'select' };
const form = { question: 'Fill', answer_format: 'form' };

const cases: Array<[string, Record<string, unknown>, number, string, RegExp?]> = [
  ['a missing question', { answer_format: 'confirm' }, 400, 'question'],
  ['an empty question', { ...base, question: '' }, 400, 'question'],
  ['a question over 4096 characters', { ...base, question: 'x'.repeat(4097) }, 400, 'question', /4097/],
  ['a missing answer_format', { question: 'q' }, 400, 'answer_format'],
  ['an unknown answer_format', { question: 'q', answer_format: 'yesno' }, 400, 'answer_format'],
  ['a select without choices', sel, 400, 'choices'],
  ['a select with no choices', { ...sel, choices: [] }, 400, 'choices'],
  ['a select with 101 choices', { ...sel, choices: Array.from({ length: 101 }, (_, i) => `c${i}`) }, 400, 'choices'],
  ['repeated choices', { ...sel, choices: ['a', 'a'] }, 400, 'choices[1]'],
  ['a choice over 200 characters', { ...sel, choices: ['y'.repeat(201)] }, 400, 'choices[0]'],
  ['choices on a text ask', { question: 'q', answer_format: 'text', choices: ['a'] }, 400, 'choices'],
  ['a form without schema', form, 400, 'schema'],
  ['a form schema not of type object', { ...form, schema: { type: 'string' } }, 400, 'schema'],
  [
    'a schema that is not JSON Schema',
    { ...form, schema: { type: 'object', properties: { a: { type: 12 } } } },
    400,
    'schema',
  ],
  ['a schema on a confirm', { ...base, schema: { type: 'object' } }, 400, 'schema'],
  ['a group_id over 200 characters', { ...base, group_id: 'g'.repeat(201) }, 400, 'group_id'],
  ['a zero timeout', { ...base, timeout: 0 }, 400, 'timeout'],
  ['a negative timeout', { ...base, timeout: -5 }, 400, 'timeout'],
  ['a string timeout', { ...base, timeout: '10' }, 400, 'timeout'],
  ['timeout with expiry_at', { ...base, mode: 'async', timeout: 10, expiry_at: future(10), run }, 400, 'timeout'],
  ['expiry_at without mode async', { ...base, expiry_at: future(10) }, 400, 'expiry_at'],
  ['mode async without expiry_at', { ...base, mode: 'async', run }, 400, 'expiry_at'],
  [
    'an expiry_at without an offset',
    { ...base, mode: 'async', expiry_at: '2030-01-01T12:00:00', run },
    400,
    'expiry_at',
    /offset/,
  ],
  [
    'an expiry_at in the past',
    { ...base, mode: 'async', expiry_at: '2020-01-01T12:00:00Z', run },
    400,
    'expiry_at',
    /past/,
  ],
  [
    'an expiry_at past the retention horizon',
    { ...base, mode: 'async', expiry_at: future(10_081), run },
    400,
    'expiry_at',
    /retention/,
  ],
  [
    'an agent expiry_at past the horizon less the idle TTL',
    { ...base, mode: 'async', expiry_at: future(10_080 - 60), run: { ...run, kind: 'agent' } },
    400,
    'expiry_at',
    /INTERACTIONS_IDLE_TTL_SECONDS/,
  ],
  ['an async ask without a run', { ...base, mode: 'async', expiry_at: future(10) }, 400, 'run'],
  [
    'an unknown on_expiry',
    { ...base, mode: 'async', expiry_at: future(10), run, on_expiry: 'ignore' },
    400,
    'on_expiry',
  ],
  [
    'an unknown channel (named)',
    { ...base, channel: 'carrier-pigeon', recipient: 'x' },
    400,
    'channel',
    /carrier-pigeon/,
  ],
  [
    'a form to a channel without form delivery (named)',
    { ...form, schema: { type: 'object' }, channel: 'plain' },
    400,
    'answer_format',
    /plain/,
  ],
  [
    'a channel form schema outside the subset (property named)',
    {
      ...form,
      channel: 'formy',
      schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object' } } } },
    },
    400,
    'schema.properties.items',
    /items/,
  ],
  [
    'a verifier with a channel',
    { question: 'q', answer_format: 'external', verifier: { name: 'shared_secret' }, channel: 'plain' },
    400,
    'verifier',
  ],
  ['a verifier on a non-external ask', { ...base, verifier: { name: 'shared_secret' } }, 400, 'verifier'],
  ['media that is not a list', { ...base, media: 'x' }, 400, 'media'],
  [
    'too many media items',
    { ...base, media: Array.from({ length: 11 }, () => ({ kind: 'link', url: 'https://a.test' })) },
    400,
    'media',
  ],
  [
    'a media item of unknown kind',
    {
      ...base,
      media: [
        { kind: 'link', url: 'https://a.test' },
        { kind: 'gif', url: 'https://a.test' },
      ],
    },
    400,
    'media[1].kind',
  ],
  ['an http image', { ...base, media: [{ kind: 'image', url: 'http://a.test/x.png' }] }, 400, 'media[0].url'],
  ['a relative link', { ...base, media: [{ kind: 'link', url: '/x' }] }, 400, 'media[0].url'],
  [
    'a data URI over 256 KiB',
    { ...base, media: [{ kind: 'image', url: `data:image/png;base64,${'A'.repeat(350_000)}` }] },
    400,
    'media[0].url',
    /256 KiB/,
  ],
  [
    'a non-image data URI',
    { ...base, media: [{ kind: 'image', url: 'data:text/html;base64,PGI+' }] },
    400,
    'media[0].url',
  ],
  [
    'a caption over 1024 characters',
    { ...base, media: [{ kind: 'link', url: 'https://a.test', caption: 'c'.repeat(1025) }] },
    400,
    'media[0].caption',
  ],
  [
    'an unknown media field',
    { ...base, media: [{ kind: 'link', url: 'https://a.test', alt: 'x' }] },
    400,
    'media[0].alt',
  ],
  ['"extensions": []', { ...base, extensions: [] }, 400, 'extensions'],
  ['a misspelt field (answerFormat)', { question: 'q', answerFormat: 'confirm' }, 400, 'answerFormat', /answerFormat/],
  ['a payload without to caller', { ...base, payload: { a: 1 } }, 400, 'payload'],
  ['a recipient without a channel', { ...base, recipient: '42' }, 400, 'recipient'],
  ['a non-boolean link', { ...base, link: 'yes' }, 400, 'link'],
  ['a sync ask to the caller', { ...base, to: 'caller', mode: 'sync' }, 400, 'mode'],
  ['a timeout too large to be a deadline (7.8e307)', { ...base, timeout: 7.8e307 }, 400, 'timeout', /at most/],
  ['a timeout past the retention horizon', { ...base, timeout: 10_080 * 60 + 1 }, 400, 'timeout'],
  [
    'a link on an ask to the caller',
    { ...base, to: 'caller', link: true, expiry_at: future(10), run: { ...run, parent_run_id: 'p' } },
    400,
    'link',
    /callback URL/,
  ],
  [
    'an external ask to the caller',
    {
      question: 'q',
      answer_format: 'external',
      to: 'caller',
      expiry_at: future(10),
      run: { ...run, parent_run_id: 'p' },
    },
    400,
    'answer_format',
    /callback URL/,
  ],
  ['a body that is not an object', [] as unknown as Record<string, unknown>, 400, 'body'],
  // remind and escalate (docs/reminders.md): checked before the store's 409, so a bad one is a 400 everywhere.
  ...followUpCases(),
];

function followUpCases(): Array<[string, Record<string, unknown>, number, string, RegExp?]> {
  const chat = { ...base, channel: 'plain', recipient: '42', timeout: 3600 };
  const step = (after: number, channel = 'plain', recipient = 'B') => ({ after, channel, recipient });
  return [
    ['remind.every below 60', { ...chat, remind: { every: 59, max: 2 } }, 400, 'remind.every', /at least 60/],
    ['remind.every not a whole number', { ...chat, remind: { every: 60.5, max: 2 } }, 400, 'remind.every'],
    ['remind.max of 0', { ...chat, remind: { every: 60, max: 0 } }, 400, 'remind.max', /1 to 10/],
    ['remind.max of 11', { ...chat, remind: { every: 60, max: 11 } }, 400, 'remind.max', /1 to 10/],
    ['remind without max', { ...chat, remind: { every: 60 } }, 400, 'remind.max'],
    ['remind that is not an object', { ...chat, remind: 60 }, 400, 'remind'],
    ['an unknown remind field', { ...chat, remind: { every: 60, max: 1, jitter: 5 } }, 400, 'remind.jitter'],
    ['remind on an inbox ask', { ...base, timeout: 3600, remind: { every: 60, max: 1 } }, 400, 'remind', /channel/],
    [
      'remind.every not before the deadline',
      { ...chat, timeout: 60, remind: { every: 60, max: 1 } },
      400,
      'remind.every',
      /deadline/,
    ],
    [
      'six escalation steps',
      { ...chat, escalate: [1, 2, 3, 4, 5, 6].map((i) => step(i * 60, 'plain', `R${i}`)) },
      400,
      'escalate',
      /at most 5/,
    ],
    ['an empty escalate', { ...chat, escalate: [] }, 400, 'escalate'],
    ['escalate that is not an array', { ...chat, escalate: step(60) }, 400, 'escalate'],
    [
      'an unknown channel in an escalation step',
      { ...chat, escalate: [step(60), step(120, 'pager')] },
      400,
      'escalate[1].channel',
      /"pager" is not registered/,
    ],
    ['an escalation step without after', { ...chat, escalate: [{ channel: 'plain' }] }, 400, 'escalate[0].after'],
    ['an escalation step at 0 s', { ...chat, escalate: [step(0)] }, 400, 'escalate[0].after'],
    [
      'an escalation step after the deadline',
      { ...chat, timeout: 600, escalate: [step(60), step(600)] },
      400,
      'escalate[1].after',
      /deadline/,
    ],
    [
      'the same surface twice in escalate',
      { ...chat, escalate: [step(60), step(120)] },
      400,
      'escalate[1]',
      /same surface/,
    ],
    [
      'an unknown field in an escalation step',
      { ...chat, escalate: [{ ...step(60), to: 'x' }] },
      400,
      'escalate[0].to',
    ],
  ];
}

describe('POST /api/interactions refuses bad asks and stores nothing', () => {
  for (const [name, body, status, field, message] of cases) {
    it(`refuses ${name}`, async () => {
      const { status: got, json } = await post(JSON.stringify(body));
      expect(got).toBe(status);
      expect(json['field']).toBe(field);
      expect(typeof json['message']).toBe('string');
      if (message) expect(json['message']).toMatch(message);
      expect(await pendingCount()).toBe(0);
    });
  }

  it('refuses malformed JSON with 400 invalid_json', async () => {
    const { status, json } = await post('{"question": "q",');
    expect(status).toBe(400);
    expect(json['error']).toBe('invalid_json');
    expect(await pendingCount()).toBe(0);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const { status, json } = await post(JSON.stringify({ ...base, question: 'x'.repeat(1024 * 1024 + 10) }));
    expect(status).toBe(413);
    expect(json['error']).toBe('payload_too_large');
    expect(await pendingCount()).toBe(0);
  });

  it('refuses an async park on the in-memory store with 409 saying why', async () => {
    const { status, json } = await post(JSON.stringify({ ...base, mode: 'async', expiry_at: future(10), run }));
    expect(status).toBe(409);
    expect(json['message']).toMatch(/durable store/);
    expect(json['message']).toMatch(/REDIS_URL/);
    expect(await pendingCount()).toBe(0);
  });

  it('refuses remind and escalate on the in-memory store with 409 saying why', async () => {
    const chat = { ...base, channel: 'plain', recipient: '42', timeout: 3600 };
    for (const [field, extra] of [
      ['remind', { remind: { every: 60, max: 2 } }],
      ['escalate', { escalate: [{ after: 120, channel: 'formy', recipient: 'B' }] }],
    ] as const) {
      const { status, json } = await post(JSON.stringify({ ...chat, ...extra }));
      expect(status).toBe(409);
      expect(json['field']).toBe(field);
      expect(json['message']).toMatch(/REDIS_URL/);
      expect(await pendingCount()).toBe(0);
    }
  });

  it('accepts a well-formed ask after all those refusals', async () => {
    const { status, json } = await post(JSON.stringify(base));
    expect(status).toBe(201);
    expect(json['status']).toBe('pending');
    expect(await pendingCount()).toBe(1);
  });
});

describe('asks that need a callback URL', () => {
  let bare: TestGateway;
  beforeAll(async () => {
    bare = await startTestGateway();
  });
  afterAll(async () => bare.close());

  for (const [name, body, field] of [
    ['an external ask', { question: 'Sign', answer_format: 'external' }, 'answer_format'],
    ['link: true', { ...base, link: true }, 'link'],
  ] as const) {
    it(`refuses ${name} without INTERACTIONS_PUBLIC_BASE_URL, naming the variable`, async () => {
      const res = await fetch(`${bare.url}/api/interactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bare.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBe(400);
      expect(json['field']).toBe(field);
      expect(json['message']).toMatch(/INTERACTIONS_PUBLIC_BASE_URL/);
      const list = await fetch(`${bare.url}/api/interactions`, { headers: { authorization: `Bearer ${bare.token}` } });
      expect(((await list.json()) as { items: unknown[] }).items).toHaveLength(0);
    });
  }
});
