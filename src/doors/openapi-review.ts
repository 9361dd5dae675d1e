import { REVIEW_LIMITS } from '../core/formats/index.js';
import { REVIEW_DECISIONS, type JsonSchema } from '../core/types.js';

/**
 * The review format's shapes for the OpenAPI document: the proposed action and the decisions on the record, and the
 * answer a review takes. Kept apart from openapi-schemas.ts so each file stays one concern.
 */

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The record's review members (present only on a review). */
export function reviewRecordProperties(): Record<string, JsonSchema> {
  return {
    action: { ...ref('ReviewAction'), description: 'Present only on a review: the proposed action.' },
    decisions: {
      type: 'array',
      items: { type: 'string', enum: [...REVIEW_DECISIONS] },
      description: 'Present only on a review: the decisions offered, in order.',
    },
  };
}

/** The optional members above, for the record's `required` list. */
export const REVIEW_RECORD_OPTIONAL = ['action', 'decisions'];

const message: JsonSchema = { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.message };

/** `components.schemas` entries of the review format. */
export function reviewSchemas(): Record<string, JsonSchema> {
  return {
    ReviewAction: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'args'],
      description: "An agent's proposed action (a tool call).",
      properties: {
        name: { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.name },
        args: { type: 'object', additionalProperties: true, description: 'The proposed arguments.' },
        description: { type: 'string', maxLength: REVIEW_LIMITS.description },
      },
    },
    ReviewAnswer: {
      description:
        'The answer to a review (`answer_format: "review"`): one of the decisions the question offers. `args` of an ' +
        "edit is checked against the question's `schema` (a violation is `invalid_answer` with `field` " +
        '`args.<path>`); a decision not offered is `invalid_answer` with `field` `decision`.',
      oneOf: [
        closedDecision('approve', {}, []),
        closedDecision('edit', { args: { type: 'object', additionalProperties: true } }, ['args']),
        closedDecision('reject', { message }, []),
        closedDecision('respond', { message }, ['message']),
      ],
    },
  };
}

function closedDecision(decision: string, members: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['decision', ...required],
    properties: { decision: { const: decision }, ...members },
  };
}
