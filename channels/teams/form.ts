import { checkField, type FieldInput } from '../../forms/check.js';
import { decodeFormFields } from '../../forms/decode.js';
import { formFields, visibleFields, type Field, type Schema } from '../../forms/fields.js';
import { EMAIL } from '../../forms/email.js';
import { MESSAGES } from '../../forms/messages.js';

/**
 * A channel-deliverable form schema (forms/subset.ts) → Adaptive Card inputs, and a submitted card's values → the
 * answer, through the shared form code (forms/fields.ts reads the schema, forms/check.ts checks each field in the
 * same words as every other surface, forms/decode.ts types the answer).
 *
 * Inputs are named `f<index>`; a choice travels as its index, so a choice of any text comes back whole. Teams checks
 * `isRequired` and `regex` in the card before it sends the action, with the field's `errorMessage`; askgate checks
 * again on arrival (a card is the client's to enforce, the answer is the server's).
 */

type Json = Record<string, unknown>;

export const inputId = (index: number): string => `f${index}`;

const DATE_TIME_REGEX = '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}(:\\d{2})?([Zz]|[+-]\\d{2}:?\\d{2})?$';

/** The words Teams shows under a field it refuses before sending: the sender's, else the shared default. */
function errorMessage(field: Field): string {
  return field.rule.errorInvalid ?? field.rule.errorRequired ?? MESSAGES.required;
}

/** The value an input shows, from an earlier submission or a pre-filled answer. */
function shown(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

function input(field: Field, index: number, value: unknown): Json {
  const base: Json = {
    id: inputId(index),
    label: field.rule.required ? field.label : `${field.label} (optional)`,
    isRequired: field.rule.required,
    errorMessage: errorMessage(field),
  };
  const { rule } = field;
  const options = field.options;
  if (options !== undefined) {
    const picked = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
    const chosen = options.flatMap((o, i) => (picked.includes(String(o)) ? [String(i)] : []));
    return {
      ...base,
      type: 'Input.ChoiceSet',
      style: rule.kind === 'radio' ? 'expanded' : 'compact',
      isMultiSelect: rule.kind === 'checkboxes',
      choices: options.map((o, i) => ({ title: String(o), value: String(i) })),
      ...(chosen.length > 0 ? { value: chosen.join(',') } : {}),
    };
  }
  const prefilled = shown(value);
  const withValue = prefilled === undefined ? {} : { value: prefilled };
  switch (rule.kind) {
    case 'checkbox':
      return {
        ...base,
        type: 'Input.Toggle',
        title: field.hint ?? field.label,
        valueOn: 'true',
        valueOff: 'false',
        value: value === true || value === 'true' ? 'true' : 'false',
      };
    case 'number':
      return {
        ...base,
        type: 'Input.Number',
        ...(rule.min !== undefined ? { min: Number(rule.min) } : {}),
        ...(rule.max !== undefined ? { max: Number(rule.max) } : {}),
        ...withValue,
      };
    default:
      break;
  }
  if (rule.format === 'date')
    return {
      ...base,
      type: 'Input.Date',
      ...(rule.min !== undefined ? { min: rule.min } : {}),
      ...(rule.max !== undefined ? { max: rule.max } : {}),
      ...withValue,
    };
  const text: Json = { ...base, type: 'Input.Text', isMultiline: rule.kind === 'textarea', ...withValue };
  if (rule.maxLength !== undefined) text['maxLength'] = rule.maxLength;
  if (rule.format === 'email') {
    text['style'] = 'Email';
    text['regex'] = EMAIL.source;
  } else if (rule.format === 'uri') text['style'] = 'Url';
  else if (rule.format === 'date-time') {
    text['regex'] = DATE_TIME_REGEX;
    text['placeholder'] = 'YYYY-MM-DDThh:mm';
  } else if (rule.minLength !== undefined && rule.minLength > 0) text['regex'] = `^[\\s\\S]{${rule.minLength},}$`;
  return text;
}

/**
 * The card body elements of a form: each field's input (its description as a line above it), values pre-filled from
 * `values` (an earlier submission, or a proposal to edit), and `errors` (field name → sentence) under their fields.
 */
export function formInputs(schema: Schema, values: Json = {}, errors: Readonly<Record<string, string>> = {}): Json[] {
  return formFields(schema).flatMap((field, index) => {
    const parts: Json[] = [];
    if (field.hint !== undefined && field.rule.kind !== 'checkbox')
      parts.push({ type: 'TextBlock', text: field.hint, wrap: true, isSubtle: true, size: 'Small' });
    parts.push(input(field, index, values[field.key]));
    const error = errors[field.name];
    if (error !== undefined) parts.push({ type: 'TextBlock', text: error, wrap: true, color: 'Attention' });
    return parts;
  });
}

/** What a submitted card holds, read against the schema: the answer, or every field's refusal. */
export type FormReading =
  | { ok: true; answer: Record<string, unknown> }
  | { ok: false; errors: Record<string, string>; values: Json; first: { field: string; label: string; error: string } };

/** The card's values as entries the shared decoder types, and each field's raw input for the shared check. */
function entriesOf(schema: Schema, data: Json): { entries: Array<[string, string]>; inputs: Map<string, FieldInput> } {
  const entries: Array<[string, string]> = [];
  const inputs = new Map<string, FieldInput>();
  for (const [index, field] of formFields(schema).entries()) {
    const raw = data[inputId(index)];
    const typed = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : String(raw);
    if (field.options !== undefined) {
      const picked = typed === '' ? [] : typed.split(',').map((i) => field.options?.[Number(i)]);
      const chosen = picked.filter((o) => o !== undefined).map(String);
      inputs.set(field.name, field.rule.kind === 'checkboxes' ? chosen : (chosen[0] ?? ''));
      for (const c of chosen) entries.push([field.name, c]);
      continue;
    }
    if (field.rule.kind === 'checkbox') {
      inputs.set(field.name, typed === 'true');
      if (typed === 'true') entries.push([field.name, 'true']);
      continue;
    }
    inputs.set(field.name, typed.trim());
    if (typed.trim() !== '') entries.push([field.name, typed.trim()]);
  }
  return { entries, inputs };
}

/** Reads a submitted form card: every visible field checked with the shared rules, then typed by the shared decoder. */
export function readForm(schema: Schema, data: Json): FormReading {
  const { entries, inputs } = entriesOf(schema, data);
  const answer = decodeFormFields(schema, entries);
  const visible = visibleFields(schema, answer);
  const errors: Record<string, string> = {};
  let first: { field: string; label: string; error: string } | null = null;
  for (const field of formFields(schema)) {
    if (!visible.has(field.name)) continue;
    const error = checkField(field.rule, inputs.get(field.name) ?? '');
    if (error === null) continue;
    errors[field.name] = error;
    first ??= { field: field.name, label: field.label, error };
  }
  if (first === null) return { ok: true, answer };
  return { ok: false, errors, values: answer, first };
}
