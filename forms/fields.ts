/**
 * The field model every form piece shares: a JSON Schema of type object read once into a list of fields (name,
 * kind of control, rule), so the HTML renderer, the decoder and the checks agree on what each property is.
 *
 * Pure TypeScript: no DOM, no Node. It runs on the server (the callback page) and in the browser (inbox, web chat).
 */

/** A JSON Schema document as plain data. Kept local so the browser build does not reach into the server core. */
export type Schema = { [key: string]: unknown };

/** The control a property becomes. `json` is the catch-all: a textarea holding JSON, so any schema can be answered. */
export type FieldKind =
  | 'text'
  | 'textarea'
  | 'number'
  | 'select'
  | 'radio'
  | 'checkboxes'
  | 'checkbox'
  | 'group'
  | 'const'
  | 'json';

/** What the client checks on one field; also written onto the page as data attributes (see check.ts). */
export interface FieldRule {
  kind: FieldKind;
  /** `integer` makes the number check ask for a whole number. */
  type: string;
  required: boolean;
  format?: string;
  /** `minimum`/`maximum` for numbers, `formatMinimum`/`formatMaximum` for dates (as strings, compared as ISO dates). */
  min?: string;
  max?: string;
  minLength?: number;
  maxLength?: number;
  errorRequired?: string;
  errorInvalid?: string;
}

export interface VisibleWhen {
  /** The dotted name of the controlling field, already resolved against the field's own object. */
  field: string;
  equals: unknown;
}

export interface Field {
  /** Dotted path, e.g. `address.city`: the control's `name` and the key of `errors`. */
  name: string;
  /** The property name inside its object. */
  key: string;
  schema: Schema;
  label: string;
  hint?: string;
  rule: FieldRule;
  /** Enum values for select, radio and checkboxes (any JSON scalar; options carry `String(value)`). */
  options?: unknown[];
  /** Children of a nested object. */
  children?: Field[];
  visibleWhen?: VisibleWhen;
}

/** Radio buttons read better than a drop-down up to this many choices. */
export const MAX_RADIO_OPTIONS = 4;
/** A string allowed to be longer than this gets a textarea instead of a one-line input. */
export const TEXTAREA_MIN_LENGTH = 255;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema's single type: `"string"`, or the first non-null member of `["string", "null"]`. */
export function schemaType(schema: Schema): string | undefined {
  const t = schema['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  if (Array.isArray(schema['enum'])) return enumType(schema['enum']);
  if (schema['const'] !== undefined) return 'const';
  if (isRecord(schema['properties'])) return 'object';
  return undefined;
}

function enumType(values: unknown[]): string | undefined {
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}

function isScalarEnum(values: unknown): values is unknown[] {
  return Array.isArray(values) && values.length > 0 && values.every((v) => v === null || typeof v !== 'object');
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Decides the control for one property. Anything without a natural control is answered as JSON. */
function kindOf(schema: Schema): { kind: FieldKind; type: string; options?: unknown[] } {
  const type = schemaType(schema) ?? 'json';
  // Combinators and references change what a value may be: only the JSON textarea answers them faithfully.
  for (const k of ['oneOf', 'anyOf', 'allOf', '$ref', 'not', 'if']) {
    if (schema[k] !== undefined) return { kind: 'json', type };
  }
  if (schema['const'] !== undefined) return { kind: 'const', type };
  const values = schema['enum'];
  if ((type === 'string' || type === 'number' || type === 'integer') && isScalarEnum(values)) {
    return { kind: values.length <= MAX_RADIO_OPTIONS ? 'radio' : 'select', type, options: values };
  }
  switch (type) {
    case 'string': {
      const maxLength = num(schema['maxLength']);
      const long =
        schema['format'] === undefined && (maxLength === undefined ? false : maxLength > TEXTAREA_MIN_LENGTH);
      return { kind: long ? 'textarea' : 'text', type };
    }
    case 'number':
    case 'integer':
      return { kind: 'number', type };
    case 'boolean':
      return { kind: 'checkbox', type };
    case 'array': {
      const items = schema['items'];
      if (isRecord(items) && isScalarEnum(items['enum']) && schemaType(items) === 'string') {
        return { kind: 'checkboxes', type, options: items['enum'] };
      }
      return { kind: 'json', type };
    }
    case 'object':
      return isRecord(schema['properties']) ? { kind: 'group', type } : { kind: 'json', type };
    default:
      return { kind: 'json', type };
  }
}

/**
 * Reads an object schema into fields. `requiredChain` is false inside an optional nested object: its children are
 * then not marked required on the page, since leaving the whole group empty is a valid answer.
 */
export function formFields(schema: Schema, prefix = '', requiredChain = true): Field[] {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = new Set(
    Array.isArray(schema['required']) ? schema['required'].filter((r) => typeof r === 'string') : [],
  );
  const keys = Object.keys(properties);
  const fields: Field[] = [];
  for (const key of keys) {
    const raw = properties[key];
    const prop: Schema = isRecord(raw) ? raw : {};
    const name = prefix === '' ? key : `${prefix}.${key}`;
    const { kind, type, options } = kindOf(prop);
    const errorMessages = isRecord(prop['errorMessages']) ? prop['errorMessages'] : {};
    const isRequired = requiredChain && required.has(key);
    const rule: FieldRule = { kind, type, required: isRequired };
    const format = str(prop['format']);
    if (format !== undefined) rule.format = format;
    const min = kind === 'number' ? num(prop['minimum']) : str(prop['formatMinimum']);
    const max = kind === 'number' ? num(prop['maximum']) : str(prop['formatMaximum']);
    if (min !== undefined) rule.min = String(min);
    if (max !== undefined) rule.max = String(max);
    const minLength = num(prop['minLength']);
    const maxLength = num(prop['maxLength']);
    if (minLength !== undefined) rule.minLength = minLength;
    if (maxLength !== undefined) rule.maxLength = maxLength;
    const errorRequired = str(errorMessages['required']);
    const errorInvalid = str(errorMessages['invalid']);
    if (errorRequired !== undefined) rule.errorRequired = errorRequired;
    if (errorInvalid !== undefined) rule.errorInvalid = errorInvalid;

    const field: Field = { name, key, schema: prop, label: str(prop['title']) ?? key, rule };
    const hint = str(prop['description']);
    if (hint !== undefined) field.hint = hint;
    if (options !== undefined) field.options = options;
    if (kind === 'group') field.children = formFields(prop, name, isRequired);
    const vw = prop['visibleWhen'];
    if (isRecord(vw) && typeof vw['field'] === 'string') {
      field.visibleWhen = { field: resolveSibling(vw['field'], prefix, keys), equals: vw['equals'] };
    }
    fields.push(field);
  }
  return fields;
}

/** `visibleWhen.field` names a sibling in the same object; a dotted name that is not a sibling is taken as absolute. */
function resolveSibling(field: string, prefix: string, siblings: string[]): string {
  if (prefix === '' || !siblings.includes(field)) return field;
  return `${prefix}.${field}`;
}

/** Every field, depth first (groups before their children). */
export function flattenFields(fields: Field[]): Field[] {
  return fields.flatMap((f) => [f, ...flattenFields(f.children ?? [])]);
}

/**
 * Whether a value satisfies `visibleWhen.equals`. Loose on purpose: a page holds strings, so `"3"` matches `3` and
 * `"true"` matches `true`; an array (checkboxes) matches when it holds the value.
 */
export function matchesEquals(actual: unknown, equals: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((a) => matchesEquals(a, equals));
  if (actual === equals) return true;
  const scalar = (v: unknown): boolean => v === null || typeof v !== 'object';
  return scalar(actual) && scalar(equals) && actual !== undefined && String(actual) === String(equals);
}

/** Reads a dotted path out of a decoded answer. */
export function valueAt(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * The dotted names of the fields shown for a given answer. A field is hidden when its `visibleWhen` does not hold,
 * when its controlling field is itself hidden, or when a group holding it is hidden.
 */
export function visibleFields(schema: Schema, value: unknown): Set<string> {
  const all = flattenFields(formFields(schema));
  const byName = new Map(all.map((f) => [f.name, f]));
  const memo = new Map<string, boolean>();
  const visiting = new Set<string>();
  const isVisible = (name: string): boolean => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const field = byName.get(name);
    if (field === undefined) return true;
    // A cycle of visibleWhen conditions can never be satisfied in order: treat it as hidden instead of looping.
    if (visiting.has(name)) return false;
    visiting.add(name);
    const parent = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
    let shown = parent === '' || isVisible(parent);
    if (shown && field.visibleWhen !== undefined) {
      const controller = field.visibleWhen.field;
      shown = isVisible(controller) && matchesEquals(valueAt(value, controller), field.visibleWhen.equals);
    }
    visiting.delete(name);
    memo.set(name, shown);
    return shown;
  };
  return new Set(all.filter((f) => isVisible(f.name)).map((f) => f.name));
}
