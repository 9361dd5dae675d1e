import { AUDIT_EVENT_TYPES } from '../core/audit-event.js';
import { ANSWER_FORMATS, MEDIA_KINDS, STATUSES, type JsonSchema } from '../core/types.js';
import { REVIEW_RECORD_OPTIONAL, reviewRecordProperties, reviewSchemas } from './openapi-review.js';

/**
 * The response bodies of the doors as JSON Schema (2020-12), for the OpenAPI document (openapi-document.ts). Each
 * object lists every member the doors write and allows no other (`additionalProperties: false`), so a member added
 * to a response without being documented here fails the conformance test (test/api/openapi-conformance.test.ts).
 * Members that do not apply are `null`, never absent, unless the description says "present only …".
 */

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str: JsonSchema = { type: 'string' };
const moment: JsonSchema = { type: 'string', format: 'date-time' };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** A closed object: every property named, `required` those always present. */
function closed(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

const surfaceTarget = closed({ channel: str, recipient: nullable(str) });

/** The interaction record's members, shared by the record and the ask's response. */
function recordProperties(): Record<string, JsonSchema> {
  return {
    id: { type: 'string', description: '96 random bits, base64url; `.<k>` is appended when it lives in shard k.' },
    status: { type: 'string', enum: [...STATUSES] },
    question: str,
    answer_format: { type: 'string', enum: [...ANSWER_FORMATS] },
    choices: nullable({ type: 'array', items: str }),
    schema: nullable({ type: 'object', additionalProperties: true }),
    group_id: nullable(str),
    channel: nullable(str),
    recipient: nullable(str),
    mode: { type: 'string', enum: ['sync', 'async'] },
    created_at: moment,
    deadline_at: moment,
    asked_by: { type: 'string', description: "The asker's token identity." },
    media: nullable({
      type: 'array',
      items: closed({ kind: { type: 'string', enum: [...MEDIA_KINDS] }, url: str, caption: str }, ['caption']),
    }),
    link: { type: 'boolean' },
    verifier: nullable(closed({ name: str })),
    to: { type: 'string', enum: ['person', 'caller'] },
    payload: { description: 'The payload of an ask to the caller; null otherwise.' },
    on_expiry: { type: 'string', enum: ['kill', 'resume'] },
    run_id: nullable(str),
    result: nullable(ref('Result')),
    resolved_at: nullable(moment),
    deliveries: {
      type: 'array',
      description: 'Present only on a question delivered on a chat channel: one per surface it was sent to.',
      items: closed(
        {
          channel: str,
          recipient: nullable(str),
          message_id: str,
          status: { type: 'string', enum: ['sent', 'delivered', 'read', 'failed'] },
          error: closed({ code: str, message: str }),
        },
        ['error'],
      ),
    },
    undeliverable: {
      const: true,
      description: 'Present only, and true, once every chat delivery of a pending question has failed.',
    },
    remind: {
      ...closed({ every: { type: 'number' }, max: { type: 'integer' } }),
      description: 'Present only with remind.',
    },
    escalate: {
      type: 'array',
      description: 'Present only with escalate: its steps, in the order given.',
      items: closed({ after: { type: 'number' }, channel: str, recipient: nullable(str) }),
    },
    deliver: {
      type: 'array',
      description: 'Present only on a question with more than one surface; the first is `channel`/`recipient`.',
      items: surfaceTarget,
    },
    approvers: { type: 'array', items: str, description: 'Present only when the ask named who may answer.' },
    quorum: {
      ...closed({ approve: { type: 'integer' }, reject: { type: 'integer' } }),
      description: 'Present only on a quorum question.',
    },
    votes: {
      type: 'array',
      description: 'Present only on a quorum question once someone voted: every counted vote, oldest first.',
      items: closed({ by: str, answer: { type: 'boolean' }, surface: str, at: moment }),
    },
    ...reviewRecordProperties(),
  };
}

const RECORD_OPTIONAL = [
  'deliveries',
  'undeliverable',
  'remind',
  'escalate',
  'deliver',
  'approvers',
  'quorum',
  'votes',
  ...REVIEW_RECORD_OPTIONAL,
];

/** What an ask answers: the record, plus what only the asker sees once. */
function askResponseProperties(): Record<string, JsonSchema> {
  return {
    ...recordProperties(),
    callback_url: { type: 'string', format: 'uri', description: 'Present only in this response, when minted.' },
    suspended: { const: true, description: 'Present, and true, when the ask parked its run (async).' },
  };
}

const failedJob = closed({
  job: str,
  provider: str,
  event: str,
  session: str,
  reference: str,
  reason: str,
  attempts: { type: 'integer' },
  received_at: moment,
  failed_at: nullable(moment),
});

const attemptOutcome = closed(
  {
    at: moment,
    outcome: { type: 'string', enum: ['delivered', 'http_error', 'refused', 'network_error'] },
    status: { type: 'integer' },
    error: str,
    reason: str,
  },
  ['status', 'error', 'reason'],
);

const presetBodyShown: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ask'],
  properties: {
    ask: { type: 'object', additionalProperties: true },
    confirmation: closed({ provider: str, reference: str, return_url: str, line_items: { type: 'array' } }),
  },
};

const presetVersion = closed({
  version: { type: 'integer' },
  body: presetBodyShown,
  written_by: str,
  written_at: moment,
});

/** `components.schemas` of the document: every response body by name. */
export function responseSchemas(): Record<string, JsonSchema> {
  const record = recordProperties();
  const askResponse = askResponseProperties();
  return {
    Error: {
      type: 'object',
      additionalProperties: false,
      required: ['error', 'message'],
      description: 'Every refusal: a stable code, one sentence naming the field and the fix, and the field.',
      properties: {
        error: { type: 'string', description: 'The code (the response lists which codes this door answers).' },
        message: str,
        field: {
          type: 'string',
          description:
            'The JSON path of the field the refusal is about, e.g. media[2].url; for `invalid_answer` the path inside ' +
            'the answer (amount, items[2]), or `answer` for the answer as a whole.',
        },
        errors: {
          type: 'array',
          description:
            '`invalid_answer`: every violation of the answer (at most 20), the first being `field`; the message names each.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['field', 'reason'],
            properties: { field: str, reason: str },
          },
        },
        status: { type: 'string', description: '`gone` and a cancel `conflict`: the status the question has.' },
        retry_after: { type: 'integer', description: '`rate_limited`: seconds until the window ends.' },
        channel: { type: 'string', description: '`channel_delivery_failed`: the channel that refused.' },
        interaction_id: { type: 'string', description: '`channel_delivery_failed`: the question, now cancelled.' },
      },
    },
    Result: closed({
      answer: {
        description:
          'A string (text, select), a boolean (confirm), an object (form), a ReviewAnswer (review) or the payload.',
      },
      reply_to: nullable(closed({ message_id: str, status: str, text: str })),
      params: nullable({ type: 'object', additionalProperties: str }),
      answered_by: str,
      answered_at: moment,
      surface: {
        type: 'string',
        description: '`api` (the answer door), `inbox`, `cli`, `callback`, or a channel name.',
      },
    }),
    Interaction: closed(record, RECORD_OPTIONAL),
    ...reviewSchemas(),
    AskResponse: closed(askResponse, [...RECORD_OPTIONAL, 'callback_url', 'suspended']),
    PresetAskResponse: closed(
      {
        ...askResponse,
        confirmation_url: {
          type: 'string',
          format: 'uri',
          description: "Present only on a confirmation: the provider's page.",
        },
        confirmation: closed({ provider: str, id: str }),
      },
      [...RECORD_OPTIONAL, 'callback_url', 'suspended', 'confirmation_url', 'confirmation'],
    ),
    InteractionPage: closed({ items: { type: 'array', items: ref('Interaction') }, next_cursor: nullable(str) }),
    AuditEvents: closed({
      items: {
        type: 'array',
        items: closed(
          {
            seq: { type: 'integer', minimum: 1 },
            at: moment,
            type: { type: 'string', enum: [...AUDIT_EVENT_TYPES] },
            surface: str,
            by: str,
            detail: { type: 'object', additionalProperties: true },
            hash: str,
          },
          ['surface', 'by', 'detail'],
        ),
      },
    }),
    AnswerVerdict: closed({ status: { type: 'string', enum: ['answered', 'voted', 'already_answered'] } }),
    Cancelled: closed({ status: { const: 'cancelled' }, interaction: ref('Interaction') }),
    Run: closed({
      run_id: str,
      status: { type: 'string', enum: ['parked', 'resumed', 'killed'] },
      resuming: { type: 'boolean' },
      identity: str,
      kind: { type: 'string', enum: ['tool', 'agent'] },
      parent_run_id: nullable(str),
      resume: {
        anyOf: [closed({ webhook: str }), closed({ handler: str })],
      },
      state: { description: 'The JSON the park handed in.' },
      asks: {
        type: 'array',
        items: closed({
          interaction_id: str,
          status: { type: 'string', enum: [...STATUSES] },
          result: nullable(ref('Result')),
        }),
      },
      outstanding: { type: 'integer' },
      killed_by: nullable(str),
      resume_attempts: { type: 'integer' },
      resume_attempt_outcomes: { type: 'array', items: attemptOutcome },
      parks: { type: 'integer' },
      checkpoint: {
        type: 'string',
        enum: ['redis', 'postgres'],
        description: "Where the park's checkpoint (state, resume target) is kept.",
      },
      parked_at: nullable(moment),
      completed_at: nullable(moment),
    }),
    RunParked: closed({
      run: ref('Run'),
      interactions: { type: 'array', items: ref('AskResponse') },
      suspended: { const: true },
    }),
    PresetWritten: closed({ name: str, version: { type: 'integer', minimum: 1 } }),
    Preset: closed({
      name: str,
      version: { type: 'integer', minimum: 1 },
      body: presetBodyShown,
      written_by: str,
      written_at: moment,
      versions: { type: 'array', items: presetVersion },
    }),
    ReconcileSummary: closed({
      selected: { type: 'integer' },
      answered: { type: 'integer' },
      already_answered: { type: 'integer' },
      expired: { type: 'integer' },
      rejected: { type: 'integer' },
      failed: { type: 'array', items: closed({ session: str, reason: str }) },
    }),
    FailedJobs: closed({ items: { type: 'array', items: failedJob } }),
    Retrying: closed({ status: { const: 'retrying' }, job: str }),
    ClaimedContinuation: closed({
      resume_id: str,
      handler: str,
      lease_id: str,
      lease_expires_at: moment,
      attempt: { type: 'integer', minimum: 1 },
      continuation: {
        description: 'What the handler receives (docs/parks.md), with `attempt`.',
        anyOf: [continuationOfRun(), continuationOfTurn()],
      },
    }),
    ContinuationCompleted: closed(
      {
        status: { const: 'completed' },
        next: {
          ...nullable(ref('ClaimedContinuation')),
          description: 'With `claim`: the next continuation under a lease, or null when none fell due within `wait`.',
        },
      },
      ['next'],
    ),
    ContinuationFailed: {
      anyOf: [closed({ status: { const: 'retrying' }, retry_at: moment }), closed({ status: { const: 'failed' } })],
    },
    LeaseExtended: closed({ lease_expires_at: moment }),
    WebChatLink: closed({
      recipient: str,
      token: str,
      url: { type: 'string', description: 'The chat page with the token in its fragment: <base>/chat#token=<token>.' },
    }),
  };
}

const askResultOfRun = closed({
  answer: {},
  reply_to: nullable(closed({ message_id: str, status: str, text: str })),
  params: nullable({ type: 'object', additionalProperties: str }),
});

/** `run.resumed` / `run.killed`: a park's continuation. */
function continuationOfRun(): JsonSchema {
  return closed(
    {
      type: { type: 'string', enum: ['run.resumed', 'run.killed'] },
      run_id: str,
      identity: str,
      kind: { type: 'string', enum: ['tool', 'agent'] },
      state: {},
      resume_id: str,
      interaction_id: str,
      ask_result: askResultOfRun,
      results: { type: 'object', additionalProperties: askResultOfRun },
      killed_by: nullable(str),
      attempt: { type: 'integer', minimum: 1 },
    },
    ['interaction_id', 'ask_result', 'results', 'killed_by'],
  );
}

/** `conversation.turn`: a chat message for a route whose target is a handler. */
function continuationOfTurn(): JsonSchema {
  return closed({
    type: { const: 'conversation.turn' },
    run_id: str,
    identity: str,
    route: str,
    resume_id: str,
    turn: closed({
      channel: str,
      thread: closed({ recipient: str, message_id: str, thread_id: str }, ['thread_id']),
      text: nullable(str),
      reply_to: nullable(closed({ message_id: str, status: str, text: str })),
      params: { type: 'object', additionalProperties: str },
      from: str,
    }),
    attempt: { type: 'integer', minimum: 1 },
  });
}
