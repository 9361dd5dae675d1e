import { decodeFormFields } from '../../../forms/decode.js';
import { invalidAnswer, invalidAnswers } from '../errors.js';
import { violations } from '../schema-validator.js';
import type { JsonSchema, ReviewAnswer, ReviewDecision } from '../types.js';
import { noChoices } from './ask-fields.js';
import { REVIEW_LIMITS, parseAction, parseArgsSchema, parseDecisions } from './review-fields.js';
import type { AnswerFormatSpec, Question } from './spec.js';
import { applyVisibility } from './visibility.js';

/**
 * A review of an agent's proposed action. The answer is one decision: `{"decision": "approve"}`,
 * `{"decision": "edit", "args": {...}}` (checked against the question's schema; each violation named
 * `args.<path>`), `{"decision": "reject", "message"?}` or `{"decision": "respond", "message"}`. A decision the
 * question does not offer is refused naming `decision`.
 */

/** The members each decision takes beside `decision`, and whether its one member is required. */
const MEMBERS: Readonly<Record<ReviewDecision, { key: 'args' | 'message'; required: boolean } | null>> = {
  approve: null,
  edit: { key: 'args', required: true },
  reject: { key: 'message', required: false },
  respond: { key: 'message', required: true },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The decisions a stored question offers (a record from before reviews had them never reaches here). */
export function offeredDecisions(question: Question): ReviewDecision[] {
  return question.decisions ?? ['approve', 'reject'];
}

function listed(decisions: readonly string[]): string {
  return decisions.map((d) => `"${d}"`).join(', ');
}

/** Checks a review answer and returns it as it is stored (edited args with fields hidden by `visibleWhen` dropped). */
export function checkReviewAnswer(question: Question, raw: unknown): ReviewAnswer {
  const offered = offeredDecisions(question);
  if (!isObject(raw)) throw invalidAnswer('', `must be an object {"decision": ${listed(offered)}}`);
  const decision = raw['decision'];
  if (decision === undefined) throw invalidAnswer('decision', `is required: one of ${listed(offered)}`);
  if (typeof decision !== 'string' || !(offered as string[]).includes(decision))
    throw invalidAnswer('decision', `must be one of ${listed(offered)} (the decisions this review offers)`);
  const member = MEMBERS[decision as ReviewDecision];
  const extra = Object.keys(raw).find((k) => k !== 'decision' && k !== member?.key);
  if (extra !== undefined) throw invalidAnswer(extra, `is not a field of a "${decision}" decision`);
  if (decision === 'approve') return { decision };
  if (decision === 'edit') return { decision, args: checkArgs(question, raw['args']) };
  const message = raw['message'];
  if (message === undefined) {
    if (decision === 'respond') throw invalidAnswer('message', 'is required: the words back to the agent');
    return { decision: 'reject' };
  }
  if (typeof message !== 'string' || message.trim() === '' || message.length > REVIEW_LIMITS.message)
    throw invalidAnswer('message', `must be a string of 1..${REVIEW_LIMITS.message} characters`);
  return decision === 'respond' ? { decision, message } : { decision: 'reject', message };
}

/** Edited args: an object, checked against the question's schema (every violation named `args.<path>`). */
function checkArgs(question: Question, raw: unknown): Record<string, unknown> {
  if (raw === undefined) throw invalidAnswer('args', 'is required: the edited arguments');
  if (!isObject(raw)) throw invalidAnswer('args', 'must be an object of the edited arguments');
  if (question.schema === null) return raw;
  const { schema, answer } = applyVisibility(question.schema, raw);
  const found = violations(schema, answer);
  if (found.length > 0)
    throw invalidAnswers(found.map(({ path, reason }) => ({ path: path === '' ? 'args' : `args.${path}`, reason })));
  return answer as Record<string, unknown>;
}

/**
 * The JSON Schema of a review's answer (a decision out of those offered, with its member), for a reader of the
 * question; the check above is what holds answers to it, with `args` checked against the question's own schema.
 */
export function reviewAnswerSchema(question: Question): JsonSchema {
  const argsSchema = question.schema ?? { type: 'object' };
  const message = { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.message };
  const variants: Record<ReviewDecision, JsonSchema> = {
    approve: { properties: { decision: { const: 'approve' } } },
    edit: { properties: { decision: { const: 'edit' }, args: argsSchema }, required: ['args'] },
    reject: { properties: { decision: { const: 'reject' }, message } },
    respond: { properties: { decision: { const: 'respond' }, message }, required: ['message'] },
  };
  return {
    type: 'object',
    required: ['decision'],
    oneOf: offeredDecisions(question).map((d) => ({ type: 'object', additionalProperties: false, ...variants[d] })),
  };
}

/**
 * The one form of the callback page: the decision (its buttons post `decision=<name>`), the message, and the edited
 * args as the `args` group (fields named `args.<key>`, decoded into `args` by the forms decoder; a JSON textarea
 * when the question has no schema).
 */
export function reviewPageSchema(question: Question): JsonSchema {
  return {
    type: 'object',
    required: ['decision'],
    properties: {
      decision: { type: 'string', enum: offeredDecisions(question), title: 'Decision' },
      message: { type: 'string', maxLength: REVIEW_LIMITS.message, title: 'Message' },
      args: { ...(question.schema ?? { type: 'object' }), title: 'Arguments' },
    },
  };
}

/** The answer in a review page's post: the decision with only the member it takes. */
function reviewFromPage(question: Question, entries: Array<[string, string]>): unknown {
  const decoded = decodeFormFields(reviewPageSchema(question), entries);
  const decision = decoded['decision'];
  if (decision === undefined)
    throw invalidAnswer('decision', `is required: one of ${listed(offeredDecisions(question))}`);
  const member = typeof decision === 'string' ? MEMBERS[decision as ReviewDecision] : undefined;
  const answer: Record<string, unknown> = { decision };
  if (member === null || member === undefined) return answer;
  // A form whose fields were all left empty decodes to no args: it proposes an empty object, which the schema judges.
  const value = decoded[member.key] ?? (member.key === 'args' ? {} : undefined);
  if (value !== undefined) answer[member.key] = value;
  return answer;
}

export const review: AnswerFormatSpec = {
  name: 'review',
  render: { controls: 'review' },
  wrapped: false,
  wholeBody: false,
  askFields: (body) => {
    const choices = noChoices(body);
    const action = parseAction(body.action);
    const schema = parseArgsSchema(body.schema, action);
    const decisions = parseDecisions(body.decisions, schema);
    return { choices, schema, review: { action, decisions } };
  },
  answerSchema: reviewAnswerSchema,
  check: checkReviewAnswer,
  pageSchema: reviewPageSchema,
  fromPage: reviewFromPage,
  // The decisions and the schema live beside the record; the claim script checks no review.
  fastClaim: null,
};
