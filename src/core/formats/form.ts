import { decodeFormFields } from '../../../forms/decode.js';
import { invalid } from '../errors.js';
import type { JsonSchema } from '../types.js';
import { noChoices, parseSchema } from './ask-fields.js';
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
  askFields: (body) => {
    const choices = noChoices(body);
    if (body.schema === undefined)
      throw invalid('schema', 'schema is required for a form: a JSON Schema of type object.');
    const schema = parseSchema(body.schema);
    if (schema['type'] !== 'object') throw invalid('schema', 'schema of a form must have "type": "object".');
    return { choices, schema };
  },
  answerSchema: (question) => question.schema,
  check: checkSchemaAnswer,
  pageSchema: schemaPage,
  fromPage: (question, entries) => decodeFormFields(schemaPage(question), entries),
  // Schemas live in the store beside the record; the claim script does not evaluate them.
  fastClaim: null,
};
