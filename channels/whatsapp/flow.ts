import { createHash } from 'node:crypto';
import { checkField, type FieldInput } from '../../forms/check.js';
import { flattenFields, formFields, valueAt, visibleFields, type Field, type Schema } from '../../forms/fields.js';
import { MESSAGES } from '../../forms/messages.js';
import {
  FLOW_COMPONENTS_MAX,
  FLOW_DROPDOWN_OPTIONS_MAX,
  FLOW_FOOTER_LABEL_MAX,
  FLOW_GROUP_LABEL_MAX,
  FLOW_GROUP_OPTIONS_MAX,
  FLOW_HELPER_TEXT_MAX,
  FLOW_LABEL_MAX,
  FLOW_OPT_IN_LABEL_MAX,
  FLOW_OPTION_TITLE_MAX,
  FLOW_SCREEN_TITLE_MAX,
  RenderLimitError,
} from './limits.js';
import { clip } from '../outcome.js';

/**
 * A channel-deliverable form schema → a WhatsApp Flow (Flow JSON), and a submitted Flow's values → the answer.
 *
 * The Flow depends on the schema alone (the question travels in the message body), so one published Flow serves
 * every question with that schema. Components are named `f<index>` (Flow names allow `[A-Za-z_][A-Za-z0-9_]*` only,
 * schema keys allow anything); choices travel as ids `o<index>`, so a choice of any length comes back whole.
 * Each input's `error-message` is bound to screen data `e<index>`: empty on first send, the sender's words for that
 * field on the fresh form sent after a server refusal.
 */

export const FLOW_JSON_VERSION = '6.3';
export const FLOW_SCREEN = 'FORM';

type Json = Record<string, unknown>;

export interface CompiledFlow {
  json: Json;
  /** `askgate_<hash>`: the same schema always compiles to the same name, which is how a published flow is found again. */
  name: string;
}

const fieldsOf = (schema: Schema): Field[] => flattenFields(formFields(schema));
const component = (i: number): string => `f${i}`;
const errorKey = (i: number): string => `e${i}`;
/** Screen data `v<index>`: a field's starting value, in a Flow compiled to be pre-filled (a review's edit). */
const valueKey = (i: number): string => `v${i}`;
const optionId = (i: number): string => `o${i}`;

/** A field's label within `max`; a longer one keeps its start, and its whole words are returned to go below it. */
function label(field: Field, max: number): { label: string; overflow?: string } {
  const text = field.rule.required ? field.label : `${field.label} (optional)`;
  if ([...text].length <= max) return { label: text };
  return { label: clip(text, max), overflow: text };
}

/** Joins sentences: a part that ends without a stop gets one before the next. */
const sentences = (parts: string[]): string =>
  parts.map((p, i) => (i < parts.length - 1 && !/[.!?…:]$/.test(p) ? `${p}.` : p)).join(' ');

/**
 * The helper text under an input (TextInput, TextArea and DatePicker take one; WhatsApp's choices and OptIn do
 * not), shown from the first open of the form: a clipped label's whole words, then the sender's own words for the
 * field (`errorMessages.invalid`, and `.required` on a required field), then its description — so a person reads
 * the rule before breaking it, not only in the error line after a refused submit. Clipped to WhatsApp's 80
 * characters; `fallback` (a format's example) only when there is nothing else.
 */
function helperOf(field: Field, overflow: string | undefined, fallback?: string): string | undefined {
  const { errorInvalid, errorRequired, required } = field.rule;
  const own = [errorInvalid, required && errorRequired !== errorInvalid ? errorRequired : undefined];
  const parts = [overflow, ...own, field.hint].filter((p): p is string => p !== undefined && p.trim() !== '');
  if (parts.length === 0) return fallback;
  return clip(sentences(parts.map((p) => p.trim())), FLOW_HELPER_TEXT_MAX);
}

function options(field: Field, max: number): Json[] {
  const values = field.options ?? [];
  if (values.length > max)
    throw new RenderLimitError(
      `field "${field.name}" has ${values.length} options; a WhatsApp Flow allows ${max} here.`,
    );
  return values.map((v, i) => ({ id: optionId(i), title: clip(String(v), FLOW_OPTION_TITLE_MAX) }));
}

const quote = (v: string): string => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * `visibleWhen` as the component's `visible`: a nested expression (Flow JSON 6.0+) over the controlling field's
 * live value. A condition on a checkbox group is not expressible; that field stays shown and the server prunes it.
 */
function visibility(
  field: Field,
  index: Map<string, number>,
  byName: Map<string, Field>,
): string | boolean | undefined {
  const when = field.visibleWhen;
  if (when === undefined) return undefined;
  const i = index.get(when.field);
  const controller = byName.get(when.field);
  if (i === undefined || controller === undefined) return undefined;
  const ref = `\${form.${component(i)}}`;
  switch (controller.rule.kind) {
    case 'checkbox':
      return when.equals === true || when.equals === 'true' ? ref : `\`!${ref}\``;
    case 'select':
    case 'radio': {
      const at = (controller.options ?? []).findIndex((o) => String(o) === String(when.equals));
      return at < 0 ? false : `\`${ref} == ${quote(optionId(at))}\``;
    }
    case 'number':
      return typeof when.equals === 'number'
        ? `\`${ref} == ${when.equals}\``
        : `\`${ref} == ${quote(String(when.equals))}\``;
    case 'checkboxes':
      return undefined;
    default:
      return `\`${ref} == ${quote(String(when.equals))}\``;
  }
}

function componentOf(field: Field, i: number, vis: string | boolean | undefined): Json {
  const { rule } = field;
  const base: Json = { name: component(i), required: rule.required };
  if (vis !== undefined) base['visible'] = vis;
  const withError = (c: Json): Json => ({ ...c, 'error-message': `\${data.${errorKey(i)}}` });
  switch (rule.kind) {
    case 'text':
    case 'textarea':
    case 'number': {
      if (rule.format === 'date') {
        const l = label(field, FLOW_LABEL_MAX);
        const c: Json = { type: 'DatePicker', ...base, label: l.label };
        const helper = helperOf(field, l.overflow);
        if (helper !== undefined) c['helper-text'] = helper;
        if (rule.min !== undefined) c['min-date'] = rule.min;
        if (rule.max !== undefined) c['max-date'] = rule.max;
        return withError(c);
      }
      const l = label(field, FLOW_LABEL_MAX);
      const type = rule.kind === 'textarea' ? 'TextArea' : 'TextInput';
      const c: Json = { type, ...base, label: l.label };
      if (type === 'TextInput')
        c['input-type'] = rule.kind === 'number' ? 'number' : rule.format === 'email' ? 'email' : 'text';
      const helper = helperOf(
        field,
        l.overflow,
        rule.format === 'date-time'
          ? 'e.g. 2025-03-31T14:00+02:00'
          : rule.format === 'uri'
            ? 'e.g. https://example.com'
            : undefined,
      );
      if (helper !== undefined) c['helper-text'] = helper;
      if (rule.minLength !== undefined && type === 'TextInput') c['min-chars'] = rule.minLength;
      if (rule.maxLength !== undefined) c[type === 'TextInput' ? 'max-chars' : 'max-length'] = rule.maxLength;
      return withError(c);
    }
    case 'select':
      return {
        type: 'Dropdown',
        ...base,
        label: label(field, FLOW_LABEL_MAX).label,
        'data-source': options(field, FLOW_DROPDOWN_OPTIONS_MAX),
      };
    case 'radio':
      return {
        type: 'RadioButtonsGroup',
        ...base,
        label: label(field, FLOW_GROUP_LABEL_MAX).label,
        'data-source': options(field, FLOW_GROUP_OPTIONS_MAX),
      };
    case 'checkboxes':
      return {
        type: 'CheckboxGroup',
        ...base,
        label: label(field, FLOW_GROUP_LABEL_MAX).label,
        'data-source': options(field, FLOW_GROUP_OPTIONS_MAX),
      };
    case 'checkbox':
      // A JSON boolean may be false, so the OptIn is never required; absent means false.
      return {
        type: 'OptIn',
        name: component(i),
        required: false,
        label: clip(field.label, FLOW_OPT_IN_LABEL_MAX),
        ...(vis === undefined ? {} : { visible: vis }),
      };
    default:
      throw new RenderLimitError(
        `field "${field.name}" (${rule.kind}) has no WhatsApp Flow component; keep channel forms to the channel-deliverable subset.`,
      );
  }
}

/**
 * The data type of a field's `init-value` (components reference: a string for text inputs, date pickers, dropdowns
 * and radio groups, where it is an option id; an array of option ids for a checkbox group; a boolean for an OptIn).
 */
function initType(field: Field): { type: string; __example__: unknown; items?: Json } {
  if (field.rule.kind === 'checkboxes') return { type: 'array', items: { type: 'string' }, __example__: [] };
  if (field.rule.kind === 'checkbox') return { type: 'boolean', __example__: false };
  return { type: 'string', __example__: '' };
}

/**
 * Compiles a schema's Flow. With `prefill`, every input starts from screen data `v<index>` (its `init-value`,
 * Flow JSON 4.0+, on components outside a Form), so one published Flow serves every review of that schema, each
 * sent with its own proposed arguments (`flowData`'s `initial`).
 */
export function compileFlow(schema: Schema, options: { prefill?: boolean } = {}): CompiledFlow {
  const fields = fieldsOf(schema);
  // The Footer is a component too.
  if (fields.length + 1 > FLOW_COMPONENTS_MAX)
    throw new RenderLimitError(
      `the form has ${fields.length} fields; a WhatsApp Flow screen allows ${FLOW_COMPONENTS_MAX - 1} besides its Footer.`,
    );
  const index = new Map(fields.map((f, i) => [f.name, i]));
  const byName = new Map(fields.map((f) => [f.name, f]));
  const children = fields.map((f, i) => {
    const c = componentOf(f, i, visibility(f, index, byName));
    return options.prefill === true ? { ...c, 'init-value': `\${data.${valueKey(i)}}` } : c;
  });
  const payload: Json = {};
  fields.forEach((_, i) => {
    payload[component(i)] = `\${form.${component(i)}}`;
  });
  const footer = 'Send';
  if (footer.length > FLOW_FOOTER_LABEL_MAX)
    throw new RenderLimitError(
      `the Footer label has ${footer.length} characters; WhatsApp allows ${FLOW_FOOTER_LABEL_MAX}.`,
    );
  children.push({ type: 'Footer', label: footer, 'on-click-action': { name: 'complete', payload } });
  const data: Json = {};
  fields.forEach((f, i) => {
    data[errorKey(i)] = { type: 'string', __example__: '' };
    if (options.prefill === true) data[valueKey(i)] = initType(f);
  });
  const title = typeof schema['title'] === 'string' ? clip(schema['title'], FLOW_SCREEN_TITLE_MAX) : 'Your answer';
  const json: Json = {
    version: FLOW_JSON_VERSION,
    screens: [{ id: FLOW_SCREEN, title, terminal: true, data, layout: { type: 'SingleColumnLayout', children } }],
  };
  const name = `askgate_${createHash('sha256').update(JSON.stringify(json)).digest('hex').slice(0, 24)}`;
  return { json, name };
}

/**
 * The screen data of a send: every error slot empty, or the words of the fields a refusal named; with `initial` (a
 * Flow compiled with `prefill`), each input's starting value from it, as the component takes it (`initType`).
 */
export function flowData(
  schema: Schema,
  errors: Map<string, string> = new Map(),
  initial?: Record<string, unknown>,
): Json {
  const data: Json = {};
  fieldsOf(schema).forEach((f, i) => {
    data[errorKey(i)] = errors.get(f.name) ?? '';
    if (initial !== undefined) data[valueKey(i)] = initValue(f, valueAt(initial, f.name));
  });
  return data;
}

/** A value as a component starts from it: an option's id for a choice, its text for an input ('' for none). */
function initValue(field: Field, value: unknown): unknown {
  const idOf = (v: unknown): string | null => {
    const at = (field.options ?? []).findIndex((o) => o === v || String(o) === String(v));
    return at < 0 ? null : optionId(at);
  };
  switch (field.rule.kind) {
    case 'checkbox':
      return value === true;
    case 'checkboxes':
      return (Array.isArray(value) ? value : []).map(idOf).filter((id) => id !== null);
    case 'select':
    case 'radio':
      return idOf(value) ?? '';
    default:
      return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  }
}

/** The submitted values (`f<i>` → raw) as the answer object, and each field's input as the form checks read it. */
export function decodeFlowValues(
  schema: Schema,
  values: Record<string, unknown>,
): { answer: Record<string, unknown>; inputs: Map<string, FieldInput> } {
  const answer: Record<string, unknown> = {};
  const inputs = new Map<string, FieldInput>();
  fieldsOf(schema).forEach((field, i) => {
    const raw = values[component(i)];
    const options = field.options ?? [];
    const pick = (id: unknown): unknown =>
      typeof id === 'string' && /^o\d+$/.test(id) ? options[Number(id.slice(1))] : undefined;
    switch (field.rule.kind) {
      case 'checkbox': {
        const on = raw === true || raw === 'true';
        answer[field.key] = on;
        inputs.set(field.name, on);
        break;
      }
      case 'checkboxes': {
        const ids = Array.isArray(raw) ? raw : [];
        const picked = ids.map(pick).filter((v) => v !== undefined);
        if (picked.length > 0) answer[field.key] = picked;
        inputs.set(field.name, picked.map(String));
        break;
      }
      case 'select':
      case 'radio': {
        const v = pick(raw);
        if (v !== undefined) answer[field.key] = v;
        inputs.set(field.name, v === undefined ? '' : String(v));
        break;
      }
      default: {
        const text = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
        inputs.set(field.name, text);
        // An empty input is an absent property (the schema's `required` decides whether that is allowed).
        if (text.trim() === '') break;
        if (field.rule.kind === 'number') {
          const n = Number(text);
          answer[field.key] = Number.isFinite(n) ? n : text;
        } else answer[field.key] = text;
      }
    }
  });
  return { answer, inputs };
}

/** The form's own checks on the visible fields, the sender's words first: field name → sentence. */
export function checkFlowAnswer(
  schema: Schema,
  answer: Record<string, unknown>,
  inputs: Map<string, FieldInput>,
): Map<string, string> {
  const shown = visibleFields(schema, answer);
  const errors = new Map<string, string>();
  for (const field of fieldsOf(schema)) {
    if (!shown.has(field.name)) continue;
    const problem = checkField(field.rule, inputs.get(field.name) ?? '');
    if (problem !== null) errors.set(field.name, problem);
  }
  return errors;
}

/**
 * The field a refusal of the core names (its `field` and `reason`, as data), with the sender's `invalid` words
 * when it has them; otherwise the generic refusal sentence.
 */
export function fieldOfRefusal(
  schema: Schema,
  refusal: { field?: string; reason: string },
): { field: string | null; words: string } {
  // The core names the field as a path (`days`, `address.city`); a Flow field is a top-level property.
  const path = (refusal.field ?? '').replace(/^[/.]/, '').replace(/\//g, '.');
  const field = fieldsOf(schema).find((f) => f.name === path);
  if (field === undefined) return { field: null, words: MESSAGES.refused };
  return { field: field.name, words: field.rule.errorInvalid ?? refusal.reason };
}

/** Field name → its label, for the refusal note in the chat. */
export function fieldLabels(schema: Schema): Map<string, string> {
  return new Map(fieldsOf(schema).map((f) => [f.name, f.label]));
}
