import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { SYNC_ASK_FIELDS, syncAskBodySchema } from '../../src/core/ask-body-schema.js';
import { type AskContext, parseAskRequest } from '../../src/core/ask-request.js';
import { AskgateError } from '../../src/core/errors.js';
import { askHumanInputSchema } from '../../src/mcp/ask-tool.js';

/**
 * The `ask_human` input schema and the ask door's rules are one source of truth: on a table of bodies, the tool
 * takes exactly what the core takes (and refuses naming the same field), and the listed JSON Schema is the
 * published one, which itself agrees with the core wherever JSON Schema can speak.
 */

const CTX: AskContext = {
  nowMs: Date.now(),
  defaultTimeoutSeconds: 300,
  retentionWaitingMinutes: 10080,
  idleTtlSeconds: 86400,
  channel: (name) => (name === 'telegram' ? { supportsFormDelivery: true, supportsReview: true } : undefined),
  registeredChannels: () => ['telegram'],
};

const long = (n: number): string => 'x'.repeat(n);
const FORM_SCHEMA = { type: 'object', properties: { seats: { type: 'integer', minimum: 1 } }, required: ['seats'] };

/** [what, body]: every body here names only channels the context knows, so the rules that need a gateway agree. */
const CASES: Array<[string, unknown]> = [
  ['a plain text ask', { question: 'Why?', answer_format: 'text' }],
  ['a review', { question: 'Run?', answer_format: 'review', action: { name: 'rm', args: { path: '/tmp/x' } } }],
  [
    'a review with a schema and decisions on telegram',
    {
      question: 'Run?',
      answer_format: 'review',
      action: { name: 'rm', args: { path: '/tmp/x' }, description: 'Deletes a file.' },
      schema: { type: 'object', properties: { path: { type: 'string' } } },
      decisions: ['approve', 'edit', 'respond'],
      channel: 'telegram',
      recipient: '42',
    },
  ],
  ['a review without action', { question: 'Run?', answer_format: 'review' }],
  ['a review with an empty name', { question: 'Run?', answer_format: 'review', action: { name: '', args: {} } }],
  ['a review with args a list', { question: 'Run?', answer_format: 'review', action: { name: 'x', args: [] } }],
  [
    'a review with an unknown decision',
    { question: 'Run?', answer_format: 'review', action: { name: 'x', args: {} }, decisions: ['maybe'] },
  ],
  [
    'edit without schema on telegram',
    {
      question: 'Run?',
      answer_format: 'review',
      action: { name: 'x', args: {} },
      decisions: ['edit'],
      channel: 'telegram',
      recipient: '42',
    },
  ],
  ['action on a confirm', { question: 'Ship?', answer_format: 'confirm', action: { name: 'x', args: {} } }],
  ['a confirm with a timeout', { question: 'Ship?', answer_format: 'confirm', timeout: 30 }],
  ['a select', { question: 'Region?', answer_format: 'select', choices: ['eu', 'us'] }],
  ['a form', { question: 'Book?', answer_format: 'form', schema: FORM_SCHEMA }],
  ['a form on telegram', { question: 'Book?', answer_format: 'form', schema: FORM_SCHEMA, channel: 'telegram' }],
  ['an external without a schema', { question: 'Sign', answer_format: 'external' }],
  ['a confirm on telegram', { question: 'Ship?', answer_format: 'confirm', channel: 'telegram', recipient: '42' }],
  ['media', { question: 'This?', answer_format: 'confirm', media: [{ kind: 'image', url: 'https://x.test/a.png' }] }],
  ['the longest question', { question: long(4096), answer_format: 'text' }],
  ['a question too long', { question: long(4097), answer_format: 'text' }],
  ['an empty question', { question: '', answer_format: 'text' }],
  ['no question', { answer_format: 'text' }],
  ['no format', { question: 'Why?' }],
  ['an unknown format', { question: 'Why?', answer_format: 'number' }],
  ['a select without choices', { question: 'Region?', answer_format: 'select' }],
  ['choices on a text', { question: 'Why?', answer_format: 'text', choices: ['a'] }],
  ['repeated choices', { question: 'Region?', answer_format: 'select', choices: ['eu', 'eu'] }],
  [
    'too many choices',
    { question: 'N?', answer_format: 'select', choices: Array.from({ length: 101 }, (_, i) => `${i}`) },
  ],
  ['a choice too long', { question: 'N?', answer_format: 'select', choices: [long(201)] }],
  ['a form without a schema', { question: 'Book?', answer_format: 'form' }],
  ['a schema on a confirm', { question: 'Ship?', answer_format: 'confirm', schema: FORM_SCHEMA }],
  [
    'a schema that does not compile',
    { question: 'B?', answer_format: 'form', schema: { type: 'object', minProperties: 'x' } },
  ],
  [
    'a nested object on a channel form',
    {
      question: 'B?',
      answer_format: 'form',
      channel: 'telegram',
      schema: { type: 'object', properties: { a: { type: 'object' } } },
    },
  ],
  ['a zero timeout', { question: 'Ship?', answer_format: 'confirm', timeout: 0 }],
  ['a timeout as a string', { question: 'Ship?', answer_format: 'confirm', timeout: '30' }],
  ['a recipient without a channel', { question: 'Ship?', answer_format: 'confirm', recipient: '42' }],
  [
    'a media item of an unknown kind',
    { question: 'This?', answer_format: 'confirm', media: [{ kind: 'gif', url: 'https://x.test/a' }] },
  ],
  [
    'media over http',
    { question: 'This?', answer_format: 'confirm', media: [{ kind: 'image', url: 'http://x.test/a.png' }] },
  ],
  [
    'too many media',
    {
      question: 'This?',
      answer_format: 'confirm',
      media: Array.from({ length: 11 }, () => ({ kind: 'link', url: 'https://x.test' })),
    },
  ],
  [
    'a caption too long',
    {
      question: 'This?',
      answer_format: 'confirm',
      media: [{ kind: 'link', url: 'https://x.test', caption: long(1025) }],
    },
  ],
  [
    'a quorum of two approvers',
    { question: 'Ship?', answer_format: 'confirm', approvers: ['ada', 'bob'], quorum: { approve: 2 } },
  ],
  [
    'a quorum with a reject count',
    { question: 'Ship?', answer_format: 'confirm', approvers: ['ada', 'bob'], quorum: { approve: 1, reject: 2 } },
  ],
  ['a quorum without approvers', { question: 'Ship?', answer_format: 'confirm', quorum: { approve: 1 } }],
  ['a quorum on a text', { question: 'Why?', answer_format: 'text', approvers: ['ada'], quorum: { approve: 1 } }],
  ['a quorum of zero', { question: 'Ship?', answer_format: 'confirm', approvers: ['ada'], quorum: { approve: 0 } }],
  [
    'a quorum no approvers can reach',
    { question: 'Ship?', answer_format: 'confirm', approvers: ['ada'], quorum: { approve: 2 } },
  ],
  [
    'a quorum with an unknown field',
    { question: 'Ship?', answer_format: 'confirm', approvers: ['ada'], quorum: { approve: 1, veto: 1 } },
  ],
  ['a field the tool does not take', { question: 'Ship?', answer_format: 'confirm', group_id: 'g' }],
  ['an async ask', { question: 'Ship?', answer_format: 'confirm', mode: 'async' }],
];

/** The core's verdict: null when it takes the body, else the field its refusal names. */
function core(body: unknown): string | null {
  try {
    parseAskRequest(body, CTX);
    return null;
  } catch (error) {
    if (error instanceof AskgateError) return error.field ?? '(none)';
    throw error;
  }
}

describe('ask_human input and the ask rules', () => {
  const tool = askHumanInputSchema();
  it.each(CASES)('agree on %s', (_what, body) => {
    const verdict = tool.safeParse(body);
    const field = core(body);
    // Fields the tool does not take are refused by the tool; the core takes some of them on other doors.
    const toolOnly = Object.keys(body as object).some((k) => !(SYNC_ASK_FIELDS as readonly string[]).includes(k));
    if (toolOnly) {
      expect(verdict.success).toBe(false);
      return;
    }
    expect(verdict.success).toBe(field === null);
    if (!verdict.success && field !== null) {
      const paths = verdict.error.issues.map((i) => i.path.map(String).join('.'));
      expect(paths.some((p) => p === field || p.startsWith(field.split(/[.[]/)[0] as string))).toBe(true);
    }
  });

  it('the published JSON Schema never refuses a sync body the core takes', () => {
    const validate = new Ajv2020({ strict: false }).compile(syncAskBodySchema());
    let checked = 0;
    for (const [what, body] of CASES) {
      const syncOnly = Object.keys(body as object).every((k) => (SYNC_ASK_FIELDS as readonly string[]).includes(k));
      if (syncOnly && core(body) === null) {
        expect(validate(body), what).toBe(true);
        checked += 1;
      }
    }
    // The table holds bodies the core takes, so this check always has something to judge.
    expect(checked).toBeGreaterThan(3);
  });

  it('publishes exactly the sync fields, with the core limits', () => {
    const schema = syncAskBodySchema() as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(schema.properties)).toEqual([...SYNC_ASK_FIELDS]);
    expect(schema.properties['question']).toMatchObject({ minLength: 1, maxLength: 4096 });
    expect(schema.properties['choices']).toMatchObject({ maxItems: 100, items: { maxLength: 200 } });
    expect(schema.properties['media']).toMatchObject({ maxItems: 10 });
  });
});
