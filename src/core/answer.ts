import { invalidAnswer } from './errors.js';
import { firstViolation } from './schema-validator.js';
import type { InteractionRecord, JsonSchema } from './types.js';

/** The longest text answer kept; longer replies are refused rather than cut. */
export const MAX_TEXT_ANSWER = 16_384;

interface VisibleWhen {
  field: string;
  equals: unknown;
}

function visibleWhenOf(property: unknown): VisibleWhen | null {
  if (property === null || typeof property !== 'object') return null;
  const vw = (property as Record<string, unknown>)['visibleWhen'];
  if (vw === null || typeof vw !== 'object') return null;
  const field = (vw as Record<string, unknown>)['field'];
  return typeof field === 'string' ? { field, equals: (vw as Record<string, unknown>)['equals'] } : null;
}

/**
 * A field hidden by `visibleWhen` is neither required nor kept: the schema loses it from `required`, and the
 * answer loses its value. Only top-level properties take part, as in the channel form subset.
 */
export function applyVisibility(schema: JsonSchema, answer: unknown): { schema: JsonSchema; answer: unknown } {
  const properties = schema['properties'];
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer) || properties === null || typeof properties !== 'object') {
    return { schema, answer };
  }
  const values = answer as Record<string, unknown>;
  const hidden = Object.entries(properties as Record<string, unknown>)
    .filter(([, prop]) => {
      const vw = visibleWhenOf(prop);
      return vw !== null && values[vw.field] !== vw.equals;
    })
    .map(([name]) => name);
  if (hidden.length === 0) return { schema, answer };
  const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]).filter((r) => !hidden.includes(r as string)) : undefined;
  const visibleAnswer = Object.fromEntries(Object.entries(values).filter(([k]) => !hidden.includes(k)));
  return { schema: required === undefined ? schema : { ...schema, required }, answer: visibleAnswer };
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
export function checkAnswer(record: Pick<InteractionRecord, 'answer_format' | 'choices' | 'schema'>, raw: unknown): unknown {
  if (raw === undefined) throw invalidAnswer('', 'an answer is required; send {"answer": <value>}');
  const base = implicitSchema(record);
  if (base === null) return raw; // an external question without a pinned schema takes the delivered payload as is
  const { schema, answer } = record.answer_format === 'form' || record.answer_format === 'external' ? applyVisibility(base, raw) : { schema: base, answer: raw };
  const violation = firstViolation(schema, answer);
  if (violation) throw invalidAnswer(violation.path, violation.reason);
  return answer;
}
