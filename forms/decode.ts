/**
 * From form-encoded entries (a callback page POST, or `FormData` in the browser) to the typed answer a schema
 * describes: numbers, booleans (an unchecked checkbox is false), arrays from repeated names, nested objects from
 * dotted names, JSON textareas parsed. Fields hidden by `visibleWhen` are dropped (a hidden field is neither
 * required nor sent), and so are empty ones, so the server's schema check speaks about what is really missing.
 *
 * A value that cannot be typed (a number field holding "abc", broken JSON) is kept as the string it was: the
 * server's schema check then refuses it with a message naming the field, instead of the decoder guessing.
 */
import { formFields, isRecord, visibleFields, type Field, type Schema } from './fields.js';

/** Entry names starting with this are the form's own bookkeeping, never answer fields. */
export const RESERVED_PREFIX = '__';
/**
 * The browser's UTC offset at submit time, e.g. `+02:00`, set by the enhancer: a datetime-local control has no
 * offset, and the server cannot know the person's time zone. Without it the wall-clock time is taken as UTC.
 */
export const TZ_OFFSET_ENTRY = '__tz_offset';

type Entries = Iterable<readonly [string, string]>;

export function decodeFormFields(schema: Schema, entries: Entries): Record<string, unknown> {
  const byName = new Map<string, string[]>();
  for (const [name, value] of entries) {
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [value]);
    else list.push(value);
  }
  const offset = normaliseOffset(byName.get(TZ_OFFSET_ENTRY)?.[0]);
  const fields = formFields(schema);
  const decoded = decodeObject(fields, byName, offset);
  const visible = visibleFields(schema, decoded);
  return prune(fields, decoded, visible);
}

function decodeObject(fields: Field[], byName: Map<string, string[]>, offset: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = decodeField(field, byName, offset);
    if (value !== undefined) out[field.key] = value;
  }
  return out;
}

function decodeField(field: Field, byName: Map<string, string[]>, offset: string): unknown {
  const raw = byName.get(field.name) ?? [];
  const first = raw[0];
  switch (field.rule.kind) {
    case 'group': {
      const inner = decodeObject(field.children ?? [], byName, offset);
      return Object.keys(inner).length === 0 && !field.rule.required ? undefined : inner;
    }
    case 'checkbox':
      // An unchecked checkbox sends nothing: its absence is the answer false.
      return raw.includes('true') || raw.includes('on');
    case 'checkboxes': {
      const chosen = raw.map((r) => fromOption(field, r));
      return chosen.length === 0 && !field.rule.required ? undefined : chosen;
    }
    case 'const':
      return field.schema['const'];
    default:
      break;
  }
  if (first === undefined || first.trim() === '') return undefined;
  switch (field.rule.kind) {
    case 'select':
    case 'radio':
      return fromOption(field, first);
    case 'number': {
      const n = Number(first.trim());
      return Number.isFinite(n) ? n : first;
    }
    case 'json':
      try {
        return JSON.parse(first) as unknown;
      } catch {
        return first;
      }
    default:
      if (field.rule.format === 'date-time') return toRfc3339(first.trim(), offset);
      // Shaped strings (email, date, uri) lose stray spaces; free text is kept as typed.
      return field.rule.format !== undefined ? first.trim() : first;
  }
}

/** An option's text back to its enum value, so a numeric enum answers a number. */
function fromOption(field: Field, raw: string): unknown {
  const match = field.options?.find((o) => String(o) === raw);
  return match === undefined ? raw : match;
}

function normaliseOffset(raw: string | undefined): string {
  if (raw === undefined) return 'Z';
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(raw.trim());
  if (m === null) return 'Z';
  return m[2] === '00' && m[3] === '00' ? 'Z' : `${m[1]}${m[2]}:${m[3]}`;
}

/** `2025-03-31T14:05` (datetime-local) → `2025-03-31T14:05:00+02:00`; a value that already has an offset is kept. */
function toRfc3339(value: string, offset: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(value);
  if (m === null) return value;
  return `${m[1]}T${m[2]}${m[3] ?? ':00'}${m[4] ?? offset}`;
}

/** Drops hidden fields, then groups left empty by that (unless required). */
function prune(fields: Field[], value: Record<string, unknown>, visible: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!visible.has(field.name) || !(field.key in value)) continue;
    const v = value[field.key];
    if (field.children !== undefined && isRecord(v)) {
      const inner = prune(field.children, v, visible);
      if (Object.keys(inner).length > 0 || field.rule.required) out[field.key] = inner;
    } else {
      out[field.key] = v;
    }
  }
  return out;
}
