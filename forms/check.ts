/**
 * The shape checks a form runs on one field before anything leaves the page: required, email, date (with its
 * min/max), date-time, URL, number (with min/max), length. Each returns the sentence to show, the sender's words
 * first. Anything else a schema says (pattern, multipleOf, …) is the server's to refuse.
 *
 * Pure: the browser reads a field's rule back from the data attributes the renderer wrote (see `ruleAttributes`).
 */
import { EMAIL } from './email.js';
import type { FieldKind, FieldRule } from './fields.js';
import { MESSAGES } from './messages.js';

/** What a control holds: a string, the checked values of a checkbox group, or a single checkbox. */
export type FieldInput = string | string[] | boolean;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// datetime-local gives minutes and sometimes seconds; a full RFC 3339 value (from `values`) is accepted too.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;

function isRealDate(value: string): boolean {
  const m = DATE.exec(value);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (m === null || m[1] === undefined || !isRealDate(m[1])) return false;
  return Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4] ?? '0') < 61;
}

function isUri(value: string): boolean {
  // An absolute URI with a scheme, as JSON Schema's "uri" asks; `URL` exists in browsers and in Node alike.
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value) || /\s/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** Code points, not UTF-16 units: how JSON Schema counts a string's length. */
function length(value: string): number {
  return [...value].length;
}

function isEmpty(value: FieldInput): boolean {
  if (typeof value === 'boolean') return false;
  if (Array.isArray(value)) return value.length === 0;
  return value.trim() === '';
}

/** The sentence to show for one field's value, or null when the value passes. */
export function checkField(rule: FieldRule, value: FieldInput): string | null {
  const invalid = (fallback: string): string => rule.errorInvalid ?? fallback;
  // A group is checked through its children, a pinned value is never typed, and a checkbox always has a value.
  if (rule.kind === 'group' || rule.kind === 'const' || rule.kind === 'checkbox') return null;
  if (isEmpty(value)) {
    if (!rule.required) return null;
    if (rule.kind === 'checkboxes') return rule.errorRequired ?? MESSAGES.chooseOne;
    return rule.errorRequired ?? MESSAGES.required;
  }
  if (typeof value !== 'string') return null;
  const v = rule.format !== undefined ? value.trim() : value;
  switch (rule.kind) {
    case 'number':
      return checkNumber(rule, v, invalid);
    case 'json':
      try {
        JSON.parse(v);
        return null;
      } catch {
        return invalid(MESSAGES.json);
      }
    case 'text':
    case 'textarea':
      return checkText(rule, v, invalid);
    default:
      return null;
  }
}

function checkNumber(rule: FieldRule, v: string, invalid: (s: string) => string): string | null {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) return invalid(MESSAGES.number);
  if (rule.type === 'integer' && !Number.isInteger(n)) return invalid(MESSAGES.integer);
  if (rule.min !== undefined && n < Number(rule.min)) return invalid(MESSAGES.min(rule.min));
  if (rule.max !== undefined && n > Number(rule.max)) return invalid(MESSAGES.max(rule.max));
  return null;
}

function checkText(rule: FieldRule, v: string, invalid: (s: string) => string): string | null {
  switch (rule.format) {
    case 'email':
      if (!EMAIL.test(v)) return invalid(MESSAGES.email);
      break;
    case 'date':
      if (!isRealDate(v)) return invalid(MESSAGES.date);
      // ISO dates compare correctly as strings.
      if (rule.min !== undefined && v < rule.min) return invalid(MESSAGES.dateMin(rule.min));
      if (rule.max !== undefined && v > rule.max) return invalid(MESSAGES.dateMax(rule.max));
      break;
    case 'date-time':
      if (!isDateTime(v)) return invalid(MESSAGES.dateTime);
      break;
    case 'uri':
      if (!isUri(v)) return invalid(MESSAGES.uri);
      break;
    default:
      break;
  }
  if (rule.minLength !== undefined && length(v) < rule.minLength) return invalid(MESSAGES.minLength(rule.minLength));
  if (rule.maxLength !== undefined && length(v) > rule.maxLength) return invalid(MESSAGES.maxLength(rule.maxLength));
  return null;
}

/**
 * The rule as `data-*` attributes (name → value) for the field's wrapper. `data-required` is present only when the
 * field is required, so the attribute alone carries the meaning.
 */
export function ruleAttributes(rule: FieldRule): Array<[string, string]> {
  const attrs: Array<[string, string]> = [
    ['data-kind', rule.kind],
    ['data-type', rule.type],
  ];
  if (rule.required) attrs.push(['data-required', 'true']);
  const optional: Array<[string, string | number | undefined]> = [
    ['data-format', rule.format],
    ['data-min', rule.min],
    ['data-max', rule.max],
    ['data-min-length', rule.minLength],
    ['data-max-length', rule.maxLength],
    ['data-error-required', rule.errorRequired],
    ['data-error-invalid', rule.errorInvalid],
  ];
  for (const [name, value] of optional) if (value !== undefined) attrs.push([name, String(value)]);
  return attrs;
}

const KINDS: readonly FieldKind[] = [
  'text',
  'textarea',
  'number',
  'select',
  'radio',
  'checkboxes',
  'checkbox',
  'group',
  'const',
  'json',
];

/** Reads a rule back from the attributes `ruleAttributes` wrote; `get` is e.g. `(n) => el.getAttribute(n)`. */
export function ruleFromAttributes(get: (name: string) => string | null | undefined): FieldRule {
  const kindAttr = get('data-kind') ?? 'text';
  const kind = (KINDS as readonly string[]).includes(kindAttr) ? (kindAttr as FieldKind) : 'text';
  const rule: FieldRule = { kind, type: get('data-type') ?? 'string', required: get('data-required') === 'true' };
  const text = (name: string): string | undefined => get(name) ?? undefined;
  const count = (name: string): number | undefined => {
    const raw = get(name);
    return raw === null || raw === undefined || raw === '' || !Number.isFinite(Number(raw)) ? undefined : Number(raw);
  };
  const format = text('data-format');
  const min = text('data-min');
  const max = text('data-max');
  const minLength = count('data-min-length');
  const maxLength = count('data-max-length');
  const errorRequired = text('data-error-required');
  const errorInvalid = text('data-error-invalid');
  if (format !== undefined) rule.format = format;
  if (min !== undefined) rule.min = min;
  if (max !== undefined) rule.max = max;
  if (minLength !== undefined) rule.minLength = minLength;
  if (maxLength !== undefined) rule.maxLength = maxLength;
  if (errorRequired !== undefined) rule.errorRequired = errorRequired;
  if (errorInvalid !== undefined) rule.errorInvalid = errorInvalid;
  return rule;
}
