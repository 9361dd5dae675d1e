import {
  COMPONENT,
  CUSTOM_ID_MAX,
  MODAL_ROWS_MAX,
  MODAL_TITLE_MAX,
  TEXT_INPUT_LABEL_MAX,
  TEXT_INPUT_LENGTH_MAX,
  TEXT_INPUT_PLACEHOLDER_MAX,
  TEXT_STYLE,
  checkLimit,
  chars,
  clip,
} from './limits.js';
import { encodeControlId } from './webhook.js';
import { checkField } from '../../forms/check.js';
import { decodeFormFields } from '../../forms/decode.js';
import { formFields, valueAt, type Field, type Schema } from '../../forms/fields.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * Discord modals: the one-input modal a text answer is typed into, and a form's modal. A modal holds at most five
 * text inputs and nothing else askgate can rely on, so a form is delivered on Discord only when every property can
 * be typed into one (`formRefusal` says which property cannot, at ask time). A submitted form is read back through
 * the same field model as the callback page (forms/fields.ts, forms/decode.ts) and checked field by field before
 * the core checks it against the schema.
 */

type Json = Record<string, unknown>;

/** The custom_id of a text modal's one input. */
export const TEXT_INPUT_ID = 'answer';
/** A form field's input is `f<index>`: schema keys may be longer than a custom_id or hold anything. */
const fieldInputId = (index: number): string => `f${index}`;

const YES = new Set(['yes', 'y', 'true']);
const NO = new Set(['no', 'n', 'false']);

/** What a person reads in a field's empty input: how to type its value. */
function placeholderOf(field: Field): string | null {
  if (field.options !== undefined) return `One of: ${field.options.map(String).join(', ')}`;
  if (field.rule.kind === 'checkbox') return 'yes or no';
  if (field.rule.kind === 'number') {
    const kind = field.rule.type === 'integer' ? 'A whole number' : 'A number';
    if (field.rule.min !== undefined && field.rule.max !== undefined)
      return `${kind} from ${field.rule.min} to ${field.rule.max}`;
    return kind;
  }
  switch (field.rule.format) {
    case 'email':
      return 'name@example.com';
    case 'date':
      return 'YYYY-MM-DD';
    case 'date-time':
      return 'YYYY-MM-DDTHH:MM+00:00';
    case 'uri':
      return 'https://…';
    default:
      return field.hint === undefined ? null : clip(field.hint, TEXT_INPUT_PLACEHOLDER_MAX);
  }
}

/**
 * Why a form schema cannot be a Discord modal, naming the property; null when it can. Called when the question is
 * asked, so the asker learns of it before anything waits. The schema is already inside the channel subset.
 */
export function formRefusal(schema: Schema): { property: string; reason: string } | null {
  const fields = formFields(schema);
  for (const [index, field] of fields.entries()) {
    const property = field.key;
    if (index >= MODAL_ROWS_MAX)
      return {
        property,
        reason: `a Discord modal holds at most ${MODAL_ROWS_MAX} inputs and this is property ${index + 1}; ask at most ${MODAL_ROWS_MAX} properties on Discord, or ask the form on the inbox or another channel`,
      };
    if (field.visibleWhen !== undefined)
      return {
        property,
        reason: 'visibleWhen needs a form that changes as it is filled, which a Discord modal cannot',
      };
    if (field.rule.kind === 'checkboxes')
      return { property, reason: 'a multiple choice has no control in a Discord modal (text inputs only)' };
    const placeholder = placeholderOf(field);
    if (field.options !== undefined && placeholder !== null && chars(placeholder) > TEXT_INPUT_PLACEHOLDER_MAX)
      return {
        property,
        reason: `its choices do not fit the ${TEXT_INPUT_PLACEHOLDER_MAX}-character hint of a Discord text input; use fewer or shorter choices`,
      };
    if ((field.rule.minLength ?? 0) > TEXT_INPUT_LENGTH_MAX)
      return { property, reason: `minLength is above the ${TEXT_INPUT_LENGTH_MAX} characters a Discord input takes` };
  }
  return null;
}

function modalId(action: 'text_modal' | 'form_modal' | 'edit_modal' | 'respond_modal', interactionId: string): string {
  const id = encodeControlId({ action, interactionId });
  checkLimit('modal custom_id', chars(id), CUSTOM_ID_MAX, 'custom_id');
  return id;
}

function textInput(input: {
  id: string;
  label: string;
  paragraph: boolean;
  required: boolean;
  placeholder: string | null;
  minLength?: number;
  maxLength?: number;
  /** The pre-filled text (a review's proposed argument), within the input's own bound. */
  value?: string;
}): Json {
  const label = clip(input.label.trim() === '' ? 'Answer' : input.label, TEXT_INPUT_LABEL_MAX);
  const body: Json = {
    type: COMPONENT.TEXT_INPUT,
    custom_id: input.id,
    label,
    style: input.paragraph ? TEXT_STYLE.PARAGRAPH : TEXT_STYLE.SHORT,
    required: input.required,
  };
  if (input.placeholder !== null) body['placeholder'] = clip(input.placeholder, TEXT_INPUT_PLACEHOLDER_MAX);
  if (input.minLength !== undefined) body['min_length'] = Math.min(input.minLength, TEXT_INPUT_LENGTH_MAX);
  body['max_length'] = Math.min(input.maxLength ?? TEXT_INPUT_LENGTH_MAX, TEXT_INPUT_LENGTH_MAX);
  if (input.value !== undefined && input.value !== '') body['value'] = clip(input.value, body['max_length'] as number);
  return { type: COMPONENT.ACTION_ROW, components: [body] };
}

function modal(customId: string, title: string, rows: Json[]): Json {
  checkLimit('inputs in a modal', rows.length, MODAL_ROWS_MAX, 'modal components');
  return {
    custom_id: customId,
    title: clip(title.trim() === '' ? 'Answer' : title, MODAL_TITLE_MAX),
    components: rows,
  };
}

/** What a text modal is for: a text answer, or a review's words back to the agent (neither yes nor no). */
export interface TextModalKind {
  action: 'text_modal' | 'respond_modal';
  label: string;
}
export const ANSWER_MODAL: TextModalKind = { action: 'text_modal', label: 'Your answer' };
export const RESPOND_MODAL: TextModalKind = { action: 'respond_modal', label: 'Your words for the agent' };

/** The modal a text (or external) answer is typed into: the question as its title, one paragraph input. */
export function textModal(interaction: Pick<StoredInteraction, 'id' | 'question'>, kind = ANSWER_MODAL): Json {
  return modal(modalId(kind.action, interaction.id), interaction.question, [
    textInput({ id: TEXT_INPUT_ID, label: kind.label, paragraph: true, required: true, placeholder: null }),
  ]);
}

/** A value as the person would type it into a field's input (the reverse of `readFormModal`); null: none to show. */
function typedOf(field: Field, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (field.rule.kind === 'checkbox') return value === true ? 'yes' : value === false ? 'no' : null;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return null;
}

/**
 * A form's modal: one text input per property, in schema order. `initial` pre-fills the inputs (a review's proposed
 * arguments, opened to be edited: `customId` then names the review's edit modal and `title` its words).
 */
export function formModal(
  interaction: Pick<StoredInteraction, 'id' | 'question' | 'schema'>,
  prefill: { initial: Record<string, unknown>; title: string; action: 'edit_modal' } | null = null,
): Json {
  const schema = interaction.schema ?? { type: 'object', properties: {} };
  const refusal = formRefusal(schema);
  // Refused at ask time; reaching here means the question was stored by a gateway without that check.
  if (refusal !== null) throw new Error(`schema property "${refusal.property}" cannot be a Discord modal input`);
  const title =
    prefill?.title ??
    (typeof schema['title'] === 'string' && schema['title'] !== '' ? schema['title'] : interaction.question);
  const rows = formFields(schema).map((field, index) => {
    const input: Parameters<typeof textInput>[0] = {
      id: fieldInputId(index),
      label: field.label,
      paragraph: field.rule.kind === 'textarea',
      required: field.rule.required,
      placeholder: placeholderOf(field),
    };
    if (field.rule.minLength !== undefined) input.minLength = field.rule.minLength;
    if (field.rule.maxLength !== undefined) input.maxLength = field.rule.maxLength;
    const typed = prefill === null ? null : typedOf(field, valueAt(prefill.initial, field.name));
    if (typed !== null) input.value = typed;
    return textInput(input);
  });
  return modal(modalId(prefill?.action ?? 'form_modal', interaction.id), title, rows);
}

export type FormReading =
  | { ok: true; answer: Record<string, unknown> }
  | { ok: false; label: string; error: string; name: string };

/**
 * A submitted form modal → the answer the schema describes, or the first field whose value does not fit (with the
 * sender's own `errorMessages` words when it has them). Typed words become the values they mean: "yes" is true, a
 * choice is matched without regard to case, numbers are numbers.
 */
export function readFormModal(schema: Schema, values: ReadonlyMap<string, string>): FormReading {
  const entries: Array<[string, string]> = [];
  for (const [index, field] of formFields(schema).entries()) {
    const typed = (values.get(fieldInputId(index)) ?? '').trim();
    const refuse = (fallback: string): FormReading => ({
      ok: false,
      label: field.label,
      name: field.name,
      error: field.rule.errorInvalid ?? fallback,
    });
    if (typed === '') {
      if (field.rule.required)
        return {
          ok: false,
          label: field.label,
          name: field.name,
          error: field.rule.errorRequired ?? 'This field is required.',
        };
      continue;
    }
    if (field.rule.kind === 'checkbox') {
      const word = typed.toLowerCase();
      if (!YES.has(word) && !NO.has(word)) return refuse('Answer yes or no.');
      entries.push([field.name, YES.has(word) ? 'true' : 'false']);
      continue;
    }
    if (field.options !== undefined) {
      const option = field.options.map(String).find((o) => o.toLowerCase() === typed.toLowerCase());
      if (option === undefined) return refuse(`Choose one of: ${field.options.map(String).join(', ')}.`);
      entries.push([field.name, option]);
      continue;
    }
    const error = checkField(field.rule, typed);
    if (error !== null) return { ok: false, label: field.label, name: field.name, error };
    entries.push([field.name, typed]);
  }
  return { ok: true, answer: decodeFormFields(schema, entries) };
}
