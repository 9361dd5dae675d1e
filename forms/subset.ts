/**
 * The channel-deliverable form subset (docs/forms.md): what a chat channel can render natively and check inside the
 * form (a Slack modal, a WhatsApp Flow, the Telegram webview). A channel form's schema is checked when the question
 * is asked, before anything is stored, and a refusal names the property. The inbox and the callback page take any
 * schema and never call this.
 *
 * The check is an allow-list: a keyword not named here (pattern, multipleOf, oneOf, …) is refused, because a native
 * rendering would silently ignore it and the person would only learn of it after submitting.
 */
import { isRecord, schemaType } from './fields.js';

export type SubsetResult = { ok: true } | { ok: false; property: string; reason: string };

const ROOT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'title',
  'description',
  'additionalProperties',
  '$schema',
  '$id',
  '$comment',
]);
/** Words about a field that change nothing about its value. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment'];
const FIELD_KEYWORDS: Record<string, readonly string[]> = {
  string: [
    ...ANNOTATIONS,
    'type',
    'enum',
    'format',
    'minLength',
    'maxLength',
    'formatMinimum',
    'formatMaximum',
    'visibleWhen',
    'errorMessages',
  ],
  number: [...ANNOTATIONS, 'type', 'minimum', 'maximum', 'visibleWhen', 'errorMessages'],
  integer: [...ANNOTATIONS, 'type', 'minimum', 'maximum', 'visibleWhen', 'errorMessages'],
  boolean: [...ANNOTATIONS, 'type', 'visibleWhen', 'errorMessages'],
  array: [...ANNOTATIONS, 'type', 'items', 'visibleWhen', 'errorMessages'],
};
const ITEM_KEYWORDS = new Set(['type', 'enum', 'title', 'description']);
const FORMATS = new Set(['email', 'date', 'date-time', 'uri']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

const refuse = (property: string, reason: string): SubsetResult => ({ ok: false, property, reason });

export function checkChannelFormSubset(schema: unknown): SubsetResult {
  if (!isRecord(schema) || schema['type'] !== 'object') {
    return refuse('(root)', 'a channel form schema must be a JSON Schema of type "object"');
  }
  const extra = Object.keys(schema).find((k) => !ROOT_KEYWORDS.has(k));
  if (extra !== undefined) return refuse('(root)', `keyword "${extra}" is outside the channel-deliverable subset`);
  const properties = schema['properties'];
  if (!isRecord(properties) || Object.keys(properties).length === 0) {
    return refuse('(root)', 'a channel form needs "properties" with at least one field');
  }
  const names = Object.keys(properties);
  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) {
      return refuse('(root)', '"required" must be an array of property names');
    }
    const unknown = required.find((r) => !names.includes(r as string));
    if (unknown !== undefined) return refuse(String(unknown), 'is listed in "required" but is not a property');
  }
  for (const name of names) {
    const reason = checkProperty(properties[name], name, names);
    if (reason !== null) return refuse(name, reason);
  }
  return { ok: true };
}

function checkProperty(prop: unknown, name: string, names: string[]): string | null {
  if (!isRecord(prop)) return 'must be a schema object';
  if (typeof prop['type'] !== 'string' && !Array.isArray(prop['enum'])) {
    return 'needs a single "type": string, number, integer, boolean or array (of string enum items)';
  }
  const type = schemaType(prop);
  if (type === undefined || FIELD_KEYWORDS[type] === undefined) {
    return (
      `type ${JSON.stringify(prop['type'] ?? type)} is outside the channel-deliverable subset ` +
      '(nested objects and other shapes render only in the inbox and on the callback page)'
    );
  }
  const allowed = FIELD_KEYWORDS[type] ?? [];
  const extra = Object.keys(prop).find((k) => !allowed.includes(k));
  if (extra !== undefined) return `keyword "${extra}" is outside the channel-deliverable subset for a ${type} field`;

  if (prop['enum'] !== undefined && !isStringEnum(prop['enum'])) return '"enum" must be a non-empty list of strings';
  if (type === 'array') {
    const items = prop['items'];
    if (
      !isRecord(items) ||
      !isStringEnum(items['enum']) ||
      (items['type'] !== undefined && items['type'] !== 'string')
    ) {
      return 'an array field must have "items" of type string with an "enum" of strings';
    }
    const extraItem = Object.keys(items).find((k) => !ITEM_KEYWORDS.has(k));
    if (extraItem !== undefined) return `keyword "items.${extraItem}" is outside the channel-deliverable subset`;
  }
  const format = prop['format'];
  if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format))) {
    return `format ${JSON.stringify(format)} is outside the channel-deliverable subset (email, date, date-time, uri)`;
  }
  for (const k of ['minimum', 'maximum']) {
    if (prop[k] !== undefined && (typeof prop[k] !== 'number' || !Number.isFinite(prop[k])))
      return `"${k}" must be a number`;
  }
  for (const k of ['minLength', 'maxLength']) {
    const v = prop[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= 0))
      return `"${k}" must be a non-negative integer`;
  }
  for (const k of ['formatMinimum', 'formatMaximum']) {
    const v = prop[k];
    if (v === undefined) continue;
    if (format !== 'date' && format !== 'date-time')
      return `"${k}" applies only to a field with format date or date-time`;
    const shape = format === 'date' ? DATE : DATE_TIME;
    if (typeof v !== 'string' || !shape.test(v)) return `"${k}" must be a ${format} string`;
  }
  return checkVisibleWhen(prop['visibleWhen'], name, names) ?? checkErrorMessages(prop['errorMessages']);
}

function isStringEnum(values: unknown): boolean {
  return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string');
}

function checkVisibleWhen(vw: unknown, name: string, names: string[]): string | null {
  if (vw === undefined) return null;
  if (!isRecord(vw) || typeof vw['field'] !== 'string' || !('equals' in vw)) {
    return '"visibleWhen" must be {"field": "<property>", "equals": <value>}';
  }
  const extra = Object.keys(vw).find((k) => k !== 'field' && k !== 'equals');
  if (extra !== undefined) return `"visibleWhen" takes only "field" and "equals", not "${extra}"`;
  if (vw['field'] === name) return '"visibleWhen" cannot point at the field itself';
  if (!names.includes(vw['field']))
    return `"visibleWhen.field" names "${vw['field']}", which is not a property of this form`;
  const equals = vw['equals'];
  if (equals !== null && typeof equals === 'object')
    return '"visibleWhen.equals" must be a string, number, boolean or null';
  return null;
}

function checkErrorMessages(em: unknown): string | null {
  if (em === undefined) return null;
  if (!isRecord(em)) return '"errorMessages" must be {"required"?: "...", "invalid"?: "..."}';
  for (const [k, v] of Object.entries(em)) {
    if (k !== 'required' && k !== 'invalid') return `"errorMessages" takes only "required" and "invalid", not "${k}"`;
    if (typeof v !== 'string' || v === '') return `"errorMessages.${k}" must be a non-empty string`;
  }
  return null;
}
