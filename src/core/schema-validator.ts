import { EMAIL } from '../../forms/email.js';
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { JsonSchema } from './types.js';

// ajv-formats ships CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = ajvFormats.default;

/**
 * JSON Schema validation with ajv: one Ajv instance, validators compiled once per distinct schema (keyed by a hash
 * of its JSON) and kept in a bounded cache, because compiling costs far more than validating.
 */

// Every error, not the first: a person filling a form is told all that is wrong with it at once.
const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
addFormats(ajv, { keywords: true });
// The page's rule (forms/email.ts) replaces ajv-formats' own, so both sides accept exactly the same addresses.
ajv.addFormat('email', EMAIL);
// askgate's own annotation keywords: they shape how a form renders, not what a value must be.
ajv.addKeyword({ keyword: 'visibleWhen', schemaType: 'object' });
ajv.addKeyword({ keyword: 'errorMessages', schemaType: 'object' });

const MAX_CACHED = 2000;
const cache = new Map<string, ValidateFunction>();

export function schemaKey(schema: JsonSchema): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
}

function compiled(schema: JsonSchema): ValidateFunction {
  const key = schemaKey(schema);
  const hit = cache.get(key);
  if (hit) {
    // Refresh recency: Map iteration order is insertion order, so re-inserting makes this the newest.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const fn = ajv.compile(schema);
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, fn);
  return fn;
}

/** Throws with ajv's reason when `schema` is not a usable JSON Schema. */
export function compileOrExplain(schema: JsonSchema): string | null {
  try {
    compiled(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface SchemaViolation {
  /** Dotted path of the offending value, e.g. `address.city` or `items[2]`; empty for the value itself. */
  path: string;
  reason: string;
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

function join(base: string, prop: string): string {
  return base === '' ? prop : `${base}.${prop}`;
}

function describe(error: ErrorObject): SchemaViolation {
  const base = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    return { path: join(base, params['missingProperty']), reason: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return { path: join(base, params['additionalProperty']), reason: 'is not an allowed field' };
  }
  if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    const allowed = (params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ');
    return { path: base, reason: `must be one of ${allowed}` };
  }
  return { path: base, reason: error.message ?? `fails ${error.keyword}` };
}

/** The most violations one refusal lists: enough for any form a person fills, bounded for a hostile answer. */
export const MAX_VIOLATIONS = 20;

/**
 * Every violation of `value` against `schema` (in ajv's order, each path and reason once, at most
 * {@link MAX_VIOLATIONS}); empty when it matches.
 */
export function violations(schema: JsonSchema, value: unknown): SchemaViolation[] {
  const validate = compiled(schema);
  if (validate(value)) return [];
  const seen = new Set<string>();
  const found: SchemaViolation[] = [];
  for (const error of validate.errors ?? []) {
    const violation = describe(error);
    const key = `${violation.path}\u0000${violation.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(violation);
    if (found.length === MAX_VIOLATIONS) break;
  }
  return found.length > 0 ? found : [{ path: '', reason: 'does not match' }];
}

/** The first violation of `value` against `schema`, or null when it matches. */
export function firstViolation(schema: JsonSchema, value: unknown): SchemaViolation | null {
  return violations(schema, value)[0] ?? null;
}
