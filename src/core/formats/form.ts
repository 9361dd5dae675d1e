import { decodeFormFields } from '../../../forms/decode.js';
import type { JsonSchema } from '../types.js';
import { type AnswerFormatSpec, type Question, checkAgainst } from './spec.js';
import { applyVisibility } from './visibility.js';

/** An answer checked against a question's own schema, `visibleWhen`-aware; none pinned takes any answer. */
export function checkSchemaAnswer(question: Question, raw: unknown): unknown {
  if (question.schema === null) return raw;
  const { schema, answer } = applyVisibility(question.schema, raw);
  return checkAgainst(schema, answer);
}

/** The page of a schema-answered question: its own schema, or an empty object form when none is pinned. */
export function schemaPage(question: Question): JsonSchema {
  return question.schema ?? { type: 'object', properties: {} };
}

/** An object answer of the question's JSON Schema form (fields hidden by `visibleWhen` are neither required nor kept). */
export const form: AnswerFormatSpec = {
  name: 'form',
  render: { controls: 'form' },
  wrapped: false,
  wholeBody: false,
  answerSchema: (question) => question.schema,
  check: checkSchemaAnswer,
  pageSchema: schemaPage,
  fromPage: (question, entries) => decodeFormFields(schemaPage(question), entries),
  // Schemas live in the store beside the record; the claim script does not evaluate them.
  fastClaim: null,
};
