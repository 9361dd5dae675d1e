import { type AskField, parseAskRequest, type AskRequest } from './ask-request.js';
import { ASK_TEXT_LIMITS } from './ask-text-limits.js';
import { invalid } from './errors.js';
import { CHOICE_LIMITS } from './formats/ask-fields.js';
import { REVIEW_LIMITS } from './formats/review-fields.js';
import { FOLLOW_UP_LIMITS } from './follow-up-fields.js';
import { MEDIA_LIMITS } from './media.js';
import { SURFACE_LIMITS } from './surface-fields.js';
import { ANSWER_FORMATS, MEDIA_KINDS, REVIEW_DECISIONS, type JsonSchema } from './types.js';

/**
 * The sync ask body published as a JSON Schema, for callers that describe it to someone else (the MCP tool
 * `ask_human` lists it as its input schema). Built from the same limits the ask rules in `ask-request.ts` apply,
 * and checked by those rules themselves (`checkSyncAskBody`), so the published shape and the enforced one cannot
 * drift apart: what JSON Schema cannot say (choices only on a select, a schema that compiles, the channel form
 * subset) is said in the descriptions and enforced by the same parser the ask door runs.
 */

/** The ask fields a sync caller may set through a published schema; the rest (async parks, runs) stay API-only. */
export const SYNC_ASK_FIELDS = [
  'question',
  'answer_format',
  'choices',
  'schema',
  'action',
  'decisions',
  'channel',
  'recipient',
  'deliver',
  'approvers',
  'quorum',
  'timeout',
  'media',
] as const;
export type SyncAskField = (typeof SYNC_ASK_FIELDS)[number];

const FORMAT_WORDS =
  'How the person answers, and so the type of the answer you get back: "text" (a free-text string), "select" ' +
  '(one of `choices`, a string), "confirm" (a yes/no button pair, a boolean), "form" (an object matching ' +
  '`schema`), "external" (the person completes something on an outside page; the payload it sends back), ' +
  '"review" (the person reviews `action`, a tool call you propose: {"decision": "approve"}, {"decision": "edit", ' +
  '"args": {...}}, {"decision": "reject", "message"?} or {"decision": "respond", "message"}).';

/** The JSON Schema of the sync ask fields, with words an agent can pick the right format and fields from. */
export function syncAskBodySchema(): JsonSchema {
  const properties: Record<SyncAskField, JsonSchema> = {
    question: {
      type: 'string',
      minLength: 1,
      maxLength: ASK_TEXT_LIMITS.question,
      description:
        'The question, as the person will read it: self-contained, with the context they need to answer. ' +
        'Plain text.',
    },
    answer_format: { type: 'string', enum: [...ANSWER_FORMATS], description: FORMAT_WORDS },
    choices: {
      type: 'array',
      minItems: 1,
      maxItems: CHOICE_LIMITS.maxItems,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: CHOICE_LIMITS.maxLength },
      description:
        'Required with answer_format "select", refused with any other: the options, ' +
        `1..${CHOICE_LIMITS.maxItems} unique strings.`,
    },
    schema: {
      type: 'object',
      description:
        'Required with answer_format "form" (optional with "external" and "review", refused otherwise): a JSON ' +
        'Schema of type object whose properties are the fields the person fills in (for a review, the schema of ' +
        'action.args, against which an edit is checked). On a chat channel keep to scalars (string, number, ' +
        'integer, boolean, string enum), arrays of string enums, format email/date/date-time/uri.',
    },
    action: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'args'],
      description:
        'Required with answer_format "review", refused otherwise: the action you propose (a tool call), shown to ' +
        'the person readably before they decide.',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.name, description: 'The tool or action name.' },
        args: { type: 'object', description: 'The proposed arguments (matching `schema` when one is given).' },
        description: {
          type: 'string',
          maxLength: REVIEW_LIMITS.description,
          description: 'What the action does, in words for the person.',
        },
      },
    },
    decisions: {
      type: 'array',
      minItems: 1,
      maxItems: REVIEW_DECISIONS.length,
      uniqueItems: true,
      items: { type: 'string', enum: [...REVIEW_DECISIONS] },
      description:
        'With answer_format "review": what the person may do. Default ["approve", "edit", "reject"] with a ' +
        '`schema`, ["approve", "reject"] without one. "edit" on a chat channel needs `schema`; "respond" lets the ' +
        'person send words back instead of a yes or no.',
    },
    channel: {
      type: 'string',
      minLength: 1,
      maxLength: ASK_TEXT_LIMITS.channel,
      description:
        'Where to deliver the question (e.g. "telegram", "slack", "whatsapp", "twilio"); omit it for the web ' +
        'inbox. Only channels the gateway has configured are accepted.',
    },
    recipient: {
      type: 'string',
      maxLength: ASK_TEXT_LIMITS.recipient,
      description: "Goes with channel: the person's address there (chat id, user id, phone number).",
    },
    deliver: {
      type: 'array',
      minItems: 1,
      maxItems: SURFACE_LIMITS.deliverMax,
      description:
        'Instead of channel and recipient: the same question on several surfaces at once; the first answer from ' +
        'any of them wins and every one shows the outcome.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['channel', 'recipient'],
        properties: {
          channel: { type: 'string', minLength: 1, maxLength: ASK_TEXT_LIMITS.channel },
          recipient: { type: 'string', minLength: 1, maxLength: SURFACE_LIMITS.recipientLength },
        },
      },
    },
    approvers: {
      type: 'array',
      minItems: 1,
      maxItems: SURFACE_LIMITS.approversMax,
      uniqueItems: true,
      description:
        'Who may answer: token identity names, or "<channel>:<user id>" (e.g. "slack:U0123", "telegram:42"); ' +
        'anyone else is refused.',
      items: { type: 'string', minLength: 1, maxLength: SURFACE_LIMITS.approverLength },
    },
    quorum: {
      type: 'object',
      additionalProperties: false,
      required: ['approve'],
      description:
        'With answer_format "confirm" and approvers: the question resolves when `approve` approvers said yes, or ' +
        '`reject` (default 1) said no; each approver votes once. Without it the first answer wins.',
      properties: {
        approve: {
          type: 'integer',
          minimum: 1,
          description: 'Yes votes that approve; at most the number of approvers.',
        },
        reject: { type: 'integer', minimum: 1, description: 'No votes that reject (default 1).' },
      },
    },
    timeout: {
      type: 'number',
      exclusiveMinimum: 0,
      description:
        'Seconds to wait for the answer before giving up (the gateway default when omitted). The call blocks ' +
        'until then.',
    },
    media: {
      type: 'array',
      maxItems: MEDIA_LIMITS.maxItems,
      description: 'Display-only images and links shown above the answer controls in the inbox.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'url'],
        properties: {
          kind: { type: 'string', enum: [...MEDIA_KINDS] },
          url: {
            type: 'string',
            minLength: 1,
            description: 'An absolute https:// URL (http(s) for a link), or a data:image/*;base64, URI.',
          },
          caption: { type: 'string', maxLength: MEDIA_LIMITS.maxCaption },
        },
      },
    },
  };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['question', 'answer_format'],
    properties,
  };
}

/**
 * Checks a sync ask body by the ask door's own rules, apart from those that need the running gateway (whether the
 * named channel is configured and can deliver forms: a channel is taken as one that can, so its form subset is
 * still checked). Throws the door's refusal (`AskgateError` naming the field); returns the parsed request.
 */
export function checkSyncAskBody(body: unknown, defaultTimeoutSeconds = 300): AskRequest {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const extra = Object.keys(body).find((k) => !(SYNC_ASK_FIELDS as readonly string[]).includes(k));
    if (extra !== undefined)
      throw invalid(extra, `${extra} is not a field of a sync ask here; use ${SYNC_ASK_FIELDS.join(', ')}.`);
  }
  return parseAskRequest(body, { ...PERMISSIVE, defaultTimeoutSeconds });
}

const PERMISSIVE = {
  nowMs: 0,
  defaultTimeoutSeconds: 300,
  // No horizon of its own: a sync timeout is bounded by the serving gateway's retention when the ask is made.
  retentionWaitingMinutes: Number.MAX_SAFE_INTEGER / 60,
  idleTtlSeconds: 0,
  channel: () => ({ supportsFormDelivery: true, supportsReview: true }),
  registeredChannels: () => [],
};

/**
 * The follow-up fields of the ask body (`remind`, `escalate`) as JSON Schema, from the limits the ask rules apply
 * (`follow-up-fields.ts`). Not part of the MCP tool's input (a tool call waits for its answer; a caller that wants
 * nudges and escalation asks through the API), so published on their own for the SDK's and the docs' readers. What a
 * schema cannot say — a step before the deadline, a registered channel, remind only with a channel — is said in the
 * descriptions and enforced by the parser.
 */
export function followUpFieldSchemas(): { remind: JsonSchema; escalate: JsonSchema } {
  return {
    remind: {
      type: 'object',
      additionalProperties: false,
      required: ['every', 'max'],
      properties: {
        every: { type: 'integer', minimum: FOLLOW_UP_LIMITS.remindEveryMin },
        max: { type: 'integer', minimum: FOLLOW_UP_LIMITS.remindMaxMin, maximum: FOLLOW_UP_LIMITS.remindMaxMax },
      },
      description:
        `Reply in the question's thread on each of its surfaces every \`every\` seconds (at least ${FOLLOW_UP_LIMITS.remindEveryMin}) ` +
        `while it is pending, at most \`max\` times; only reminders due before the deadline are sent. Needs a channel.`,
    },
    escalate: {
      type: 'array',
      minItems: 1,
      maxItems: FOLLOW_UP_LIMITS.escalateMaxSteps,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['after', 'channel'],
        properties: {
          after: { type: 'number', exclusiveMinimum: 0 },
          channel: { type: 'string', minLength: 1 },
          recipient: { type: 'string', minLength: 1 },
        },
      },
      description:
        'Deliver the question to one more surface (a registered channel and its recipient) when it is still pending ' +
        '`after` seconds from the ask; each step before the deadline, no surface twice.',
    },
  };
}

/** The run that parks (`run`) as JSON Schema, from the rules `parseRun` applies in `ask-request.ts`. */
export function runFieldSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['run_id', 'resume'],
    description:
      'The resumable run that parks on an async ask. `resume` is {"webhook": "<http(s) URL>"} (a webhook whose ' +
      'host is a literal loopback, private, link-local or metadata address is refused unless the gateway allows ' +
      'private webhooks) or {"handler": "<name>"} (an SDK worker).',
    properties: {
      run_id: { type: 'string', minLength: 1, maxLength: ASK_TEXT_LIMITS.runId },
      kind: { type: 'string', enum: ['tool', 'agent'], description: 'Default "tool".' },
      parent_run_id: {
        type: ['string', 'null'],
        minLength: 1,
        description: 'The run that answers an ask to the caller (required with to "caller").',
      },
      state: { description: 'Any JSON, handed back on resume.' },
      resume: {
        anyOf: [
          {
            type: 'object',
            required: ['webhook'],
            properties: { webhook: { type: 'string', pattern: '^https?://' } },
          },
          { type: 'object', required: ['handler'], properties: { handler: { type: 'string' } } },
        ],
      },
    },
  };
}

/**
 * The whole ask body of `POST /api/interactions` as JSON Schema: the sync fields above, the follow-up fields, and
 * the fields of async parks, callers and callbacks, from the same limits `parseAskRequest` applies. Its property
 * names are exactly the fields the parser knows (`ASK_FIELDS`); what JSON Schema cannot say (which fields go with
 * which mode or format, a deadline inside the retention horizon) is said in the descriptions and enforced by it.
 */
export function askBodySchema(): JsonSchema {
  const sync = syncAskBodySchema();
  const followUps = followUpFieldSchemas();
  const properties: Record<AskField, JsonSchema> = {
    ...(sync['properties'] as Record<SyncAskField, JsonSchema>),
    group_id: {
      type: 'string',
      maxLength: ASK_TEXT_LIMITS.groupId,
      description: 'Threads related questions; the list filters on it.',
    },
    mode: {
      type: 'string',
      enum: ['sync', 'async'],
      description: '"sync" (default: the caller waits) or "async" (the run in `run` parks until the answer).',
    },
    expiry_at: {
      type: 'string',
      format: 'date-time',
      description:
        'Async only, required there: the deadline, an RFC 3339 date-time with an offset, in the future and ' +
        'within the retention horizon.',
    },
    on_expiry: {
      type: 'string',
      enum: ['kill', 'resume'],
      description: 'What a passed deadline does to a parked run; default "kill".',
    },
    link: { type: 'boolean', description: 'Also mint a callback URL for this ask; default false.' },
    verifier: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' } },
      description: 'External asks only: who may answer through the callback, e.g. {"name": "shared_secret"}.',
    },
    to: {
      type: 'string',
      enum: ['person', 'caller'],
      description: '"person" (default) or "caller": the parent run answers (always async).',
    },
    payload: { description: 'Any JSON handed to the caller; with to "caller" only.' },
    run: runFieldSchema(),
    remind: followUps.remind,
    escalate: followUps.escalate,
  };
  return { ...sync, properties };
}
