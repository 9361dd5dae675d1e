import {
  BLOCK_ID_MAX,
  CALLBACK_ID_MAX,
  CHECKBOX_OPTIONS_MAX,
  INPUT_HINT_MAX,
  INPUT_LABEL_MAX,
  OPTION_TEXT_MAX,
  OPTION_VALUE_MAX,
  PLACEHOLDER_MAX,
  PRIVATE_METADATA_MAX,
  RADIO_OPTIONS_MAX,
  SECTION_TEXT_MAX,
  SELECT_OPTIONS_MAX,
  RenderLimitError,
  TEXT_INPUT_LENGTH_MAX,
  VIEW_BLOCKS_MAX,
  VIEW_BUTTON_MAX,
  VIEW_TITLE_MAX,
  checkLimit,
  chars,
  clip,
} from './limits.js';
import { escapeMrkdwn, plain, type Block } from './blocks.js';
import { checkField, type FieldInput } from '../../forms/check.js';
import { decodeFormFields } from '../../forms/decode.js';
import { formFields, isRecord, valueAt, visibleFields, type Field, type Schema } from '../../forms/fields.js';

/**
 * A form question → a Block Kit modal, built from the same field model as the callback page (forms/fields.ts), and
 * a submitted modal's state → the answer, checked field by field with the same sentences (forms/check.ts), so a
 * person reads the same words on Slack as on the page. Pure data: the plugin makes the calls.
 */

export const FORM_CALLBACK_ID = 'askgate_form';
/** Every input's action_id; the field is named by the block_id (`f:<field name>`). */
export const VALUE_ACTION = 'value';
const FIELD_BLOCK = 'f:';

/** What the modal remembers across the round trip: the question, and the message it was opened from. */
export interface FormMetadata {
  interactionId: string;
  channel: string | null;
  ts: string | null;
}

export function encodeMetadata(meta: FormMetadata): string {
  const text = JSON.stringify({ i: meta.interactionId, c: meta.channel, t: meta.ts });
  checkLimit('the modal’s private_metadata length', chars(text), PRIVATE_METADATA_MAX, 'PRIVATE_METADATA_MAX');
  return text;
}

export function decodeMetadata(text: string | null | undefined): FormMetadata | null {
  try {
    const v: unknown = JSON.parse(text ?? '');
    if (!isRecord(v) || typeof v['i'] !== 'string') return null;
    return {
      interactionId: v['i'],
      channel: typeof v['c'] === 'string' ? v['c'] : null,
      ts: typeof v['t'] === 'string' ? v['t'] : null,
    };
  } catch {
    return null;
  }
}

export const blockIdOf = (field: Pick<Field, 'name'>): string => `${FIELD_BLOCK}${field.name}`;

/** An enum option's value is its index: an enum string may be longer than an option value may be. */
const optionsOf = (field: Field): Array<{ text: ReturnType<typeof plain>; value: string }> =>
  (field.options ?? []).map((o, i) => {
    const value = `o${i}`;
    checkLimit(`option value of field "${field.name}"`, value.length, OPTION_VALUE_MAX, 'OPTION_VALUE_MAX');
    return { text: plain(String(o), OPTION_TEXT_MAX), value };
  });

/**
 * The element's pre-filled state from `value` (a review's proposed arguments), in the property Slack reads for its
 * type (block-elements reference: `initial_value`, `initial_date`, `initial_date_time`, `initial_option`,
 * `initial_options`); nothing for a value the element cannot show (Slack refuses an initial option that is not one
 * of its options).
 */
function initialOf(field: Field, el: Block, value: unknown): Block {
  if (value === undefined || value === null) return {};
  const options = (el['options'] as Array<{ value: string }> | undefined) ?? [];
  const optionOf = (v: unknown): { value: string } | undefined => {
    const at = (field.options ?? []).findIndex((o) => o === v || String(o) === String(v));
    return at < 0 ? undefined : options[at];
  };
  switch (el['type']) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
      // Clipped to the input's own bound, which Slack holds the pre-filled text to as well.
      return typeof value === 'string' || typeof value === 'number'
        ? { initial_value: clip(String(value), (el['max_length'] as number | undefined) ?? TEXT_INPUT_LENGTH_MAX) }
        : {};
    case 'number_input':
      return typeof value === 'number' &&
        Number.isFinite(value) &&
        (el['is_decimal_allowed'] || Number.isInteger(value))
        ? { initial_value: String(value) }
        : {};
    case 'datepicker':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? { initial_date: value } : {};
    case 'datetimepicker': {
      const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      return Number.isFinite(at) ? { initial_date_time: Math.floor(at / 1000) } : {};
    }
    case 'radio_buttons':
    case 'static_select': {
      const option = optionOf(value);
      return option === undefined ? {} : { initial_option: option };
    }
    case 'checkboxes':
    case 'multi_static_select': {
      const chosen =
        field.rule.kind === 'checkbox'
          ? value === true
            ? options
            : []
          : (Array.isArray(value) ? value : []).map(optionOf).filter((o) => o !== undefined);
      return chosen.length === 0 ? {} : { initial_options: chosen };
    }
    default:
      return {};
  }
}

function element(field: Field, initial?: unknown): Block {
  const el = bareElement(field);
  return { ...el, ...initialOf(field, el, initial) };
}

function bareElement(field: Field): Block {
  const { rule } = field;
  const base = { action_id: VALUE_ACTION };
  switch (rule.kind) {
    case 'text':
    case 'textarea': {
      if (rule.format === 'email') return { ...base, type: 'email_text_input' };
      if (rule.format === 'uri') return { ...base, type: 'url_text_input' };
      // Slack's datepicker takes no min/max: the bounds are written in the hint and checked on submit.
      if (rule.format === 'date') return { ...base, type: 'datepicker' };
      if (rule.format === 'date-time') return { ...base, type: 'datetimepicker' };
      const el: Block = { ...base, type: 'plain_text_input', multiline: rule.kind === 'textarea' };
      // Slack caps both lengths at 3000; a longer schema bound is still checked on submit.
      if (rule.minLength !== undefined) el['min_length'] = Math.min(rule.minLength, TEXT_INPUT_LENGTH_MAX);
      if (rule.maxLength !== undefined) el['max_length'] = Math.min(rule.maxLength, TEXT_INPUT_LENGTH_MAX);
      return el;
    }
    case 'number': {
      const el: Block = { ...base, type: 'number_input', is_decimal_allowed: rule.type !== 'integer' };
      if (rule.min !== undefined) el['min_value'] = rule.min;
      if (rule.max !== undefined) el['max_value'] = rule.max;
      return el;
    }
    case 'radio':
      checkLimit(
        `options of field "${field.name}" (radio_buttons)`,
        field.options?.length ?? 0,
        RADIO_OPTIONS_MAX,
        'RADIO_OPTIONS_MAX',
      );
      return { ...base, type: 'radio_buttons', options: optionsOf(field) };
    case 'select':
      checkLimit(
        `options of field "${field.name}" (static_select)`,
        field.options?.length ?? 0,
        SELECT_OPTIONS_MAX,
        'SELECT_OPTIONS_MAX',
      );
      return {
        ...base,
        type: 'static_select',
        placeholder: plain('Choose…', PLACEHOLDER_MAX),
        options: optionsOf(field),
      };
    case 'checkboxes': {
      const count = field.options?.length ?? 0;
      if (count <= CHECKBOX_OPTIONS_MAX) return { ...base, type: 'checkboxes', options: optionsOf(field) };
      checkLimit(
        `options of field "${field.name}" (multi_static_select)`,
        count,
        SELECT_OPTIONS_MAX,
        'SELECT_OPTIONS_MAX',
      );
      return {
        ...base,
        type: 'multi_static_select',
        placeholder: plain('Choose…', PLACEHOLDER_MAX),
        options: optionsOf(field),
      };
    }
    case 'checkbox':
      return { ...base, type: 'checkboxes', options: [{ text: plain('Yes', OPTION_TEXT_MAX), value: 'true' }] };
    default:
      // The channel subset (forms/subset.ts) refuses these at ask time; reaching here is a bug, said plainly.
      throw new RenderLimitError(
        `field "${field.name}" of kind ${rule.kind}: a Slack modal has no control for it (channel form subset).`,
      );
  }
}

function hintOf(field: Field): string | undefined {
  const parts: string[] = [];
  if (field.hint !== undefined) parts.push(field.hint);
  if (field.rule.format === 'date' && field.rule.min !== undefined) parts.push(`On or after ${field.rule.min}.`);
  if (field.rule.format === 'date' && field.rule.max !== undefined) parts.push(`On or before ${field.rule.max}.`);
  return parts.length === 0 ? undefined : parts.join(' ');
}

/**
 * The controllers of visibleWhen: their input blocks dispatch a block_actions on change, so the plugin can
 * views.update the modal with the dependent fields shown or hidden.
 */
function controllers(fields: Field[]): Set<string> {
  return new Set(fields.flatMap((f) => (f.visibleWhen === undefined ? [] : [f.visibleWhen.field])));
}

function inputBlock(field: Field, dispatch: boolean, initial?: unknown): Block {
  const blockId = blockIdOf(field);
  checkLimit(`block_id of field "${field.name}"`, chars(blockId), BLOCK_ID_MAX, 'BLOCK_ID_MAX');
  // A required field is enforced by Slack's client, in Slack's words, unless the sender wrote its own sentence:
  // then the block is optional to Slack and the server says the sender's words (response_action: errors).
  // A single checkbox is never required: unchecked is the answer false.
  const optional = !field.rule.required || field.rule.errorRequired !== undefined || field.rule.kind === 'checkbox';
  const block: Block = {
    type: 'input',
    block_id: blockId,
    label: plain(field.label, INPUT_LABEL_MAX),
    optional,
    element: element(field, initial),
  };
  const hint = hintOf(field);
  if (hint !== undefined) block['hint'] = plain(hint, INPUT_HINT_MAX);
  if (dispatch) block['dispatch_action'] = true;
  return block;
}

/**
 * The modal for a form question, showing the fields visible for `value` (the answers so far). Slack keeps what a
 * person typed across views.update as long as each input keeps its block_id and action_id, so a rebuilt view
 * needs no initial values. `initial` pre-fills the inputs (a review's proposed arguments, to be edited); `intro`
 * goes under the question (the proposed action, as the message shows it).
 */
export function buildFormView(
  interaction: { question: string; schema: Schema | null },
  meta: FormMetadata,
  value: Record<string, unknown> = {},
  options: { initial?: Record<string, unknown>; intro?: string; submit?: string; title?: string } = {},
): Block {
  const schema = interaction.schema ?? { type: 'object', properties: {} };
  const fields = formFields(schema);
  const visible = visibleFields(schema, value);
  const dispatching = controllers(fields);
  const blocks: Block[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clip(escapeMrkdwn(interaction.question), SECTION_TEXT_MAX) } },
  ];
  if (options.intro !== undefined)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(options.intro, SECTION_TEXT_MAX) } });
  for (const field of fields)
    if (visible.has(field.name))
      blocks.push(
        inputBlock(
          field,
          dispatching.has(field.name),
          options.initial === undefined ? undefined : valueAt(options.initial, field.name),
        ),
      );
  checkLimit('blocks in the form modal', blocks.length, VIEW_BLOCKS_MAX, 'VIEW_BLOCKS_MAX');
  checkLimit('the modal callback_id length', FORM_CALLBACK_ID.length, CALLBACK_ID_MAX, 'CALLBACK_ID_MAX');
  const title =
    options.title ?? (typeof schema['title'] === 'string' && schema['title'] !== '' ? schema['title'] : 'Answer');
  return {
    type: 'modal',
    callback_id: FORM_CALLBACK_ID,
    private_metadata: encodeMetadata(meta),
    title: plain(title, VIEW_TITLE_MAX),
    submit: plain(options.submit ?? 'Submit', VIEW_BUTTON_MAX),
    close: plain('Cancel', VIEW_BUTTON_MAX),
    blocks,
  };
}

/** Slack's `view.state.values`: block_id → action_id → the element's state. */
export type ViewStateValues = Record<string, Record<string, Record<string, unknown>>>;

const optionValue = (o: unknown): string | null => (isRecord(o) && typeof o['value'] === 'string' ? o['value'] : null);

/** One element's state as what the field holds: a string, checked option values, or a checkbox. */
function inputOf(field: Field, state: Record<string, unknown> | undefined): FieldInput {
  if (state === undefined) return field.rule.kind === 'checkboxes' ? [] : field.rule.kind === 'checkbox' ? false : '';
  const byIndex = (raw: string | null): string => {
    const m = raw === null ? null : /^o(\d+)$/.exec(raw);
    const option = m === null ? undefined : field.options?.[Number(m[1])];
    return option === undefined ? (raw ?? '') : String(option);
  };
  switch (state['type']) {
    case 'checkboxes':
    case 'multi_static_select': {
      const chosen = (Array.isArray(state['selected_options']) ? state['selected_options'] : [])
        .map(optionValue)
        .filter((v): v is string => v !== null);
      if (field.rule.kind === 'checkbox') return chosen.includes('true');
      return chosen.map(byIndex);
    }
    case 'static_select':
    case 'radio_buttons': {
      const v = optionValue(state['selected_option']);
      return v === null ? '' : byIndex(v);
    }
    case 'datepicker':
      return typeof state['selected_date'] === 'string' ? state['selected_date'] : '';
    case 'datetimepicker': {
      const s = state['selected_date_time'];
      // Slack gives Unix seconds; the answer is RFC 3339 in UTC.
      return typeof s === 'number' ? new Date(s * 1000).toISOString().replace(/\.000Z$/, 'Z') : '';
    }
    default:
      return typeof state['value'] === 'string' ? state['value'] : '';
  }
}

/** The typed answer so far (hidden and empty fields dropped), through the callback page's decoder. */
export function readFormValue(
  schema: Schema,
  values: ViewStateValues,
): { value: Record<string, unknown>; inputs: Map<string, FieldInput> } {
  const inputs = new Map<string, FieldInput>();
  const entries: Array<[string, string]> = [];
  for (const field of formFields(schema)) {
    const input = inputOf(field, values[blockIdOf(field)]?.[VALUE_ACTION]);
    inputs.set(field.name, input);
    if (typeof input === 'boolean') {
      if (input) entries.push([field.name, 'true']);
    } else if (Array.isArray(input)) for (const v of input) entries.push([field.name, v]);
    else entries.push([field.name, input]);
  }
  return { value: decodeFormFields(schema, entries), inputs };
}

export type Submission = { ok: true; answer: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/**
 * A submitted modal, checked on the server field by field: a broken visible field gets the sender's words for its
 * block (or the default sentence), keyed by block_id for `response_action: "errors"`.
 */
export function checkSubmission(schema: Schema, values: ViewStateValues): Submission {
  const { value, inputs } = readFormValue(schema, values);
  const visible = visibleFields(schema, value);
  const errors: Record<string, string> = {};
  for (const field of formFields(schema)) {
    if (!visible.has(field.name)) continue;
    const problem = checkField(field.rule, inputs.get(field.name) ?? '');
    if (problem !== null) errors[blockIdOf(field)] = problem;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, answer: value };
}

/** The block an error without a field lands on: the first input of the view. */
export function firstInputBlock(schema: Schema, value: Record<string, unknown>): string | null {
  const visible = visibleFields(schema, value);
  const first = formFields(schema).find((f) => visible.has(f.name));
  return first === undefined ? null : blockIdOf(first);
}

/** The block of a field of ours named by a core refusal's `field` (a dotted path; an item's lands on its list). */
function fieldOfRefusal(schema: Schema, field: string | undefined): Field | undefined {
  const name = field?.split('[')[0];
  return name === undefined ? undefined : formFields(schema).find((f) => f.name === name);
}

/**
 * Where and how the modal shows a core refusal, from the refusal as data (its field and bare reason): on the block
 * of the field it names, in the sender's words for that field when given (`errorMessages.invalid`), else the reason
 * as a sentence; a refusal of no field of ours lands on `fallback` (the first input) with the core's sentence, or
 * null when the view has no input.
 */
export function refusalOnModal(
  schema: Schema,
  refusal: { field?: string; reason: string; message: string },
  fallback: string | null,
): { block: string; words: string } | null {
  const field = fieldOfRefusal(schema, refusal.field);
  if (field !== undefined)
    return { block: blockIdOf(field), words: field.rule.errorInvalid ?? sentence(refusal.reason) };
  return fallback === null ? null : { block: fallback, words: refusal.message };
}

function sentence(reason: string): string {
  const text = reason.charAt(0).toUpperCase() + reason.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
