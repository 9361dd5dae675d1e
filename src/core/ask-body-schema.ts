import { ASK_TEXT_LIMITS, parseAskRequest, type AskRequest } from './ask-request.js';
import { invalid } from './errors.js';
import { CHOICE_LIMITS } from './formats/ask-fields.js';
import { FOLLOW_UP_LIMITS } from './follow-up-fields.js';
import { MEDIA_LIMITS } from './media.js';
import { SURFACE_LIMITS } from './surface-fields.js';
import { ANSWER_FORMATS, MEDIA_KINDS, type JsonSchema } from './types.js';

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
  '`schema`), "external" (the person completes something on an outside page; the payload it sends back).';

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
        'Required with answer_format "form" (optional with "external", refused otherwise): a JSON Schema of ' +
        'type object whose properties are the fields the person fills in. On a chat channel keep to scalars ' +
        '(string, number, integer, boolean, string enum), arrays of string enums, format email/date/date-time/uri.',
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
  channel: () => ({ supportsFormDelivery: true }),
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
