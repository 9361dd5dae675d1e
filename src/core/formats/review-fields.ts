import { invalid } from '../errors.js';
import { violations } from '../schema-validator.js';
import { REVIEW_DECISIONS, type JsonSchema, type ReviewAction, type ReviewDecision } from '../types.js';
import { parseSchema } from './ask-fields.js';

/**
 * The ask fields of a review (`action`, `decisions`, and `schema` as the JSON Schema of the action's args), parsed
 * with a refusal that names the field for every way they can be wrong. Another format refuses `action` and
 * `decisions` by name (`noReview`).
 */

/** A review's limits, shared by the checks here and the published ask body schema (`ask-body-schema.ts`). */
export const REVIEW_LIMITS = { name: 200, description: 4096, message: 4096 } as const;

/** A review's parsed fields. */
export interface ReviewFields {
  action: ReviewAction;
  decisions: ReviewDecision[];
}

/**
 * The decisions offered when the ask names none. **Decision:** approve, edit and reject when the ask gives a
 * `schema` (editing needs to know the args' fields, and a channel's form is built from it); approve and reject
 * without one. `respond` is offered only when asked for: an agent must be ready to read words back.
 */
export function defaultDecisions(schema: JsonSchema | null): ReviewDecision[] {
  return schema === null ? ['approve', 'reject'] : ['approve', 'edit', 'reject'];
}

const ACTION_KEYS = ['name', 'args', 'description'];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `action`: `{"name": 1..200 characters, "args": object, "description"?: ≤ 4096 characters}`. */
export function parseAction(raw: unknown): ReviewAction {
  if (raw === undefined || raw === null)
    throw invalid('action', 'action is required for a review: {"name", "args": {...}, "description"?}.');
  if (!isObject(raw)) throw invalid('action', 'action must be an object {"name", "args": {...}, "description"?}.');
  const extra = Object.keys(raw).find((k) => !ACTION_KEYS.includes(k));
  if (extra !== undefined)
    throw invalid(`action.${extra}`, `action.${extra} is not an action field; use name, args and description.`);
  const { name, args, description } = raw;
  if (typeof name !== 'string' || name.trim() === '' || name.length > REVIEW_LIMITS.name)
    throw invalid(
      'action.name',
      `action.name must be the action's name, a string of 1..${REVIEW_LIMITS.name} characters.`,
    );
  if (!isObject(args))
    throw invalid('action.args', 'action.args must be an object of the proposed arguments (use {} for none).');
  const action: ReviewAction = { name, args };
  if (description !== undefined) {
    if (typeof description !== 'string' || description.length > REVIEW_LIMITS.description)
      throw invalid(
        'action.description',
        `action.description must be a string of at most ${REVIEW_LIMITS.description} characters.`,
      );
    action.description = description;
  }
  return action;
}

/** `decisions`: 1..4 unique names out of approve, edit, reject, respond; the default when absent. */
export function parseDecisions(raw: unknown, schema: JsonSchema | null): ReviewDecision[] {
  if (raw === undefined || raw === null) return defaultDecisions(schema);
  const names = REVIEW_DECISIONS.map((d) => `"${d}"`).join(', ');
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalid('decisions', `decisions must be a non-empty list out of ${names}.`);
  const seen = new Set<string>();
  raw.forEach((d, i) => {
    if (typeof d !== 'string' || !(REVIEW_DECISIONS as readonly string[]).includes(d))
      throw invalid(`decisions[${i}]`, `decisions[${i}] must be one of ${names}.`);
    if (seen.has(d)) throw invalid(`decisions[${i}]`, `decisions[${i}] repeats "${d}"; each decision once.`);
    seen.add(d);
  });
  return raw as ReviewDecision[];
}

/**
 * A review's `schema`: optional; when given, a JSON Schema of type object that the proposed args themselves match
 * (an agent proposing args its own schema refuses would have them approved as they are).
 */
export function parseArgsSchema(raw: unknown, action: ReviewAction): JsonSchema | null {
  if (raw === undefined) return null;
  const schema = parseSchema(raw);
  if (schema['type'] !== 'object')
    throw invalid('schema', 'schema of a review is the JSON Schema of action.args and must have "type": "object".');
  const found = violations(schema, action.args)[0];
  if (found !== undefined) {
    const field = found.path === '' ? 'action.args' : `action.args.${found.path}`;
    throw invalid(field, `${field} does not match schema: ${found.reason}; propose args the schema accepts.`);
  }
  return schema;
}
