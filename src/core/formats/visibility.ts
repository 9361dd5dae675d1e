import { visibleFields } from '../../../forms/fields.js';
import type { JsonSchema } from '../types.js';

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
