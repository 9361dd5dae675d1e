import { invalidAnswer } from './errors.js';
import { firstViolation } from './schema-validator.js';
import { visibleFields } from '../../forms/fields.js';
import type { InteractionRecord, JsonSchema } from './types.js';

/** The longest text answer kept; longer replies are refused rather than cut. */
export const MAX_TEXT_ANSWER = 16_384;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Drops hidden fields from one object level of the schema's `required` and of the answer, then recurses. */
function pruneHidden(
  schema: JsonSchema,
  answer: Record<string, unknown>,
  prefix: string,
  visible: Set<string>,
): { schema: JsonSchema; answer: Record<string, unknown> } {
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const shown = (key: string): boolean => visible.has(`${prefix}${key}`);
  const nextProperties: Record<string, unknown> = { ...properties };
  const nextAnswer: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) {
    if (key in properties && !shown(key)) continue;
    const child = properties[key];
    if (isObject(child) && child['type'] === 'object' && isObject(value)) {
      const pruned = pruneHidden(child, value, `${prefix}${key}.`, visible);
      nextProperties[key] = pruned.schema;
      nextAnswer[key] = pruned.answer;
    } else {
      nextAnswer[key] = value;
    }
  }
  const required = Array.isArray(schema['required'])
    ? (schema['required'] as unknown[]).filter((r) => typeof r !== 'string' || !(r in properties) || shown(r))
    : undefined;
  const nextSchema: JsonSchema = { ...schema, properties: nextProperties };
  if (required !== undefined) nextSchema['required'] = required;
  return { schema: nextSchema, answer: nextAnswer };
}

/**
 * A field hidden by `visibleWhen` is neither required nor kept: the schema loses it from `required` and the answer
 * loses its value, at every level. Which fields are shown is decided by the same function the form pages use
 * (`forms/fields.ts`), so the server never requires a field the person could not see.
 */
export function applyVisibility(schema: JsonSchema, answer: unknown): { schema: JsonSchema; answer: unknown } {
  if (!isObject(answer) || !isObject(schema['properties']) || !JSON.stringify(schema).includes('"visibleWhen"'))
    return { schema, answer };
  return pruneHidden(schema, answer, '', visibleFields(schema, answer));
}

function implicitSchema(record: Pick<InteractionRecord, 'answer_format' | 'choices' | 'schema'>): JsonSchema | null {
  switch (record.answer_format) {
    case 'text':
      return { type: 'string', minLength: 1, maxLength: MAX_TEXT_ANSWER };
    case 'select':
      return { type: 'string', enum: record.choices ?? [] };
    case 'confirm':
      return { type: 'boolean' };
    case 'form':
    case 'external':
      return record.schema;
  }
}

/**
 * Checks a raw answer against the question's format and schema and returns the value to store.
 * Throws `invalid_answer` naming the path and the reason; nothing is written by this function.
 */
export function checkAnswer(
  record: Pick<InteractionRecord, 'answer_format' | 'choices' | 'schema'>,
  raw: unknown,
): unknown {
  if (raw === undefined) throw invalidAnswer('', 'an answer is required; send {"answer": <value>}');
  const base = implicitSchema(record);
  if (base === null) return raw; // an external question without a pinned schema takes the delivered payload as is
  const { schema, answer } =
    record.answer_format === 'form' || record.answer_format === 'external'
      ? applyVisibility(base, raw)
      : { schema: base, answer: raw };
  const violation = firstViolation(schema, answer);
  if (violation) throw invalidAnswer(violation.path, violation.reason);
  return answer;
}
