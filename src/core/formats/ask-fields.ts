import { invalid } from '../errors.js';
import { compileOrExplain } from '../schema-validator.js';
import type { JsonSchema, ReviewAction, ReviewDecision } from '../types.js';

/**
 * The ask body's format-bound fields (`choices`, `schema`, a review's `action` and `decisions`), parsed by the format
 * that takes them and refused by name by every other: each format's `askFields` is built from these.
 */

/** The fields of an ask body a format reads. */
export interface AskFieldsInput {
  choices: unknown;
  schema: unknown;
  action?: unknown;
  decisions?: unknown;
}

export interface AskFields {
  choices: string[] | null;
  schema: JsonSchema | null;
  /** A review's action and decisions; null on every other format. */
  review?: { action: ReviewAction; decisions: ReviewDecision[] } | null;
}

/** Refuses a review's fields (`action`, `decisions`) on another format. */
export function noReview(body: AskFieldsInput): void {
  for (const field of ['action', 'decisions'] as const)
    if (body[field] !== undefined)
      throw invalid(field, `${field} applies to answer_format "review" only; drop it or use "review".`);
}

/** Refuses `choices` on a format other than select. */
export function noChoices(body: AskFieldsInput): null {
  if (body.choices !== undefined)
    throw invalid('choices', 'choices apply to a select only; drop it or use answer_format "select".');
  return null;
}

/** Refuses `schema` on a format that takes none. */
export function noSchema(body: AskFieldsInput): null {
  if (body.schema !== undefined) throw invalid('schema', 'schema applies to form, external and review asks only.');
  return null;
}

/** A select's limits, shared by the check below and the ask body's published schema (`ask-body-schema.ts`). */
export const CHOICE_LIMITS = { maxItems: 100, maxLength: 200 } as const;

/** A select's choices: 1..100 unique strings of 1..200 characters. */
export function parseChoices(raw: unknown): string[] {
  const { maxItems, maxLength } = CHOICE_LIMITS;
  if (!Array.isArray(raw)) throw invalid('choices', `choices must be a list of 1..${maxItems} strings for a select.`);
  if (raw.length < 1 || raw.length > maxItems)
    throw invalid('choices', `choices has ${raw.length} items; a select takes 1..${maxItems}.`);
  const seen = new Set<string>();
  raw.forEach((c, i) => {
    if (typeof c !== 'string' || c.length < 1 || c.length > maxLength)
      throw invalid(`choices[${i}]`, `choices[${i}] must be a string of 1..${maxLength} characters.`);
    if (seen.has(c)) throw invalid(`choices[${i}]`, `choices[${i}] repeats "${c}"; choices must be unique.`);
    seen.add(c);
  });
  return raw as string[];
}

/** A JSON Schema object that compiles. */
export function parseSchema(raw: unknown): JsonSchema {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('schema', 'schema must be a JSON Schema object.');
  const schema = raw as JsonSchema;
  const why = compileOrExplain(schema);
  if (why !== null) throw invalid('schema', `schema is not a valid JSON Schema: ${why}`);
  return schema;
}

/** The ask fields of a format that takes neither choices nor a schema. */
export function plainAskFields(body: AskFieldsInput): AskFields {
  return { choices: noChoices(body), schema: noSchema(body) };
}
