/**
 * The Block Kit checks of the fake Slack (slack-server.ts): what Slack refuses in a message's blocks
 * (`invalid_blocks`, `invalid_blocks_format`) or a view (`invalid_arguments`). The limits, each from Slack's
 * reference: https://api.slack.com/reference/block-kit/blocks (block_id ≤ 255 on every block, section text ≤ 3000
 * and ≤ 10 fields of ≤ 2000, header ≤ 150, context ≤ 10 elements, input label and hint ≤ 2000, actions ≤ 25
 * elements), https://api.slack.com/reference/block-kit/block-elements (action_id ≤ 255 on every element, button
 * text ≤ 75 and value ≤ 2000, placeholders ≤ 150, plain_text_input min_length 0..3000 and max_length 1..3000,
 * number_input with a boolean is_decimal_allowed and min_value, max_value, initial_value as strings, select options
 * ≤ 100, radio buttons and checkboxes ≤ 10, max_selected_items ≥ 1),
 * https://api.slack.com/reference/block-kit/composition-objects#option (text ≤ 75, value ≤ 150) and
 * https://api.slack.com/reference/surfaces/views (title, submit, close ≤ 24; ≤ 100 blocks; private_metadata ≤ 3000;
 * callback_id ≤ 255). A message holds ≤ 50 blocks (https://api.slack.com/methods/chat.postMessage#arg_blocks).
 */

export class Refusal extends Error {
  constructor(readonly error: string) {
    super(error);
  }
}

export type Json = Record<string, unknown>;
export const text = (v: unknown): string =>
  typeof v === 'object' && v !== null && typeof (v as Json)['text'] === 'string' ? ((v as Json)['text'] as string) : '';
export const len = (s: string): number => [...s].length;

/** A text object of one of `types` (Block Kit: `{type: "plain_text" | "mrkdwn", text}`), or absent when allowed. */
function checkTextObject(v: unknown, types: ReadonlyArray<'plain_text' | 'mrkdwn'>, optional = false): void {
  if (v === undefined && optional) return;
  if (typeof v !== 'object' || v === null) throw new Refusal('invalid_blocks');
  const t = v as Json;
  if (!types.includes(t['type'] as 'plain_text') || typeof t['text'] !== 'string') throw new Refusal('invalid_blocks');
}

const PLAIN = ['plain_text'] as const;
const ANY_TEXT = ['plain_text', 'mrkdwn'] as const;

/** The interactive elements of a block: an actions block's, an input's, a section's accessory. */
function elementsOf(block: Json): Json[] {
  if (block['type'] === 'actions') return Array.isArray(block['elements']) ? (block['elements'] as Json[]) : [];
  if (block['type'] === 'input') return block['element'] === undefined ? [] : [block['element'] as Json];
  if (block['type'] === 'section' && block['accessory'] !== undefined) return [block['accessory'] as Json];
  return [];
}

/**
 * Ids Slack wants unique (block_id over the message or view, action_id within its block) and short: "block_id ...
 * Maximum length for this field is 255 characters" (blocks reference), "action_id ... Maximum length is 255
 * characters" (block elements reference).
 */
function checkIds(blocks: Json[]): void {
  const blockIds = new Set<string>();
  for (const block of blocks) {
    const blockId = block['block_id'];
    if (blockId !== undefined && (typeof blockId !== 'string' || len(blockId) > 255 || blockId === ''))
      throw new Refusal('invalid_blocks');
    if (typeof blockId === 'string') {
      if (blockIds.has(blockId)) throw new Refusal('invalid_blocks');
      blockIds.add(blockId);
    }
    const actionIds = new Set<string>();
    for (const el of elementsOf(block)) {
      const actionId = el['action_id'];
      if (actionId === undefined) continue;
      if (typeof actionId !== 'string' || len(actionId) > 255 || actionId === '') throw new Refusal('invalid_blocks');
      if (actionIds.has(actionId)) throw new Refusal('invalid_blocks');
      actionIds.add(actionId);
    }
  }
}

/** A decimal number written as a string, as number_input's bounds and initial value must be. */
const NUMBER_STRING = /^-?\d+(\.\d+)?$/;

/** The limits of one interactive element (https://api.slack.com/reference/block-kit/block-elements). */
function checkElement(el: Json): void {
  if (len(text(el['placeholder'])) > 150) throw new Refusal('invalid_blocks');
  switch (el['type']) {
    case 'plain_text_input': {
      const min = el['min_length'];
      const max = el['max_length'];
      if (min !== undefined && (!Number.isInteger(min) || (min as number) < 0 || (min as number) > 3000))
        throw new Refusal('invalid_blocks');
      if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 3000))
        throw new Refusal('invalid_blocks');
      if (typeof min === 'number' && typeof max === 'number' && min > max) throw new Refusal('invalid_blocks');
      break;
    }
    case 'number_input': {
      // "is_decimal_allowed: Boolean. Required"; min_value, max_value and initial_value are "String" fields.
      if (typeof el['is_decimal_allowed'] !== 'boolean') throw new Refusal('invalid_blocks');
      for (const k of ['min_value', 'max_value', 'initial_value']) {
        const v = el[k];
        if (v !== undefined && (typeof v !== 'string' || !NUMBER_STRING.test(v))) throw new Refusal('invalid_blocks');
        if (typeof v === 'string' && el['is_decimal_allowed'] === false && v.includes('.'))
          throw new Refusal('invalid_blocks');
      }
      if (
        typeof el['min_value'] === 'string' &&
        typeof el['max_value'] === 'string' &&
        Number(el['min_value']) > Number(el['max_value'])
      )
        throw new Refusal('invalid_blocks');
      break;
    }
    case 'multi_static_select':
      if (
        el['max_selected_items'] !== undefined &&
        (!Number.isInteger(el['max_selected_items']) || (el['max_selected_items'] as number) < 1)
      )
        throw new Refusal('invalid_blocks');
      break;
    case 'datepicker':
      if (el['initial_date'] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(el['initial_date'])))
        throw new Refusal('invalid_blocks');
      break;
  }
  checkInitialOptions(el);
}

/**
 * A pre-selected option must be one of the element's own: "initial_option: A single option that exactly matches one
 * of the options within options" (static_select, radio_buttons) and "initial_options: An array of option objects
 * that exactly matches one or more of the options within options" (checkboxes, multi_static_select), from
 * https://api.slack.com/reference/block-kit/block-elements.
 */
function checkInitialOptions(el: Json): void {
  const own = new Set(((el['options'] as Json[] | undefined) ?? []).map((o) => JSON.stringify(o)));
  const chosen = [
    ...(el['initial_option'] === undefined ? [] : [el['initial_option']]),
    ...(Array.isArray(el['initial_options']) ? (el['initial_options'] as unknown[]) : []),
  ];
  if (Array.isArray(el['initial_options']) && el['initial_options'].length === 0) throw new Refusal('invalid_blocks');
  for (const option of chosen) if (!own.has(JSON.stringify(option))) throw new Refusal('invalid_blocks');
}

/** The Block Kit limits Slack checks (a subset: the ones askgate's renderer has to respect). */
export function checkBlocks(blocks: unknown, max: number, where: 'message' | 'view'): Json[] {
  if (blocks === undefined) return [];
  if (!Array.isArray(blocks)) throw new Refusal(where === 'message' ? 'invalid_blocks_format' : 'invalid_arguments');
  if (blocks.length > max) throw new Refusal(where === 'message' ? 'invalid_blocks' : 'invalid_arguments');
  checkIds(blocks as Json[]);
  for (const block of blocks as Json[]) {
    if (block['type'] === 'header') checkTextObject(block['text'], PLAIN);
    if (block['type'] === 'section') checkTextObject(block['text'], ANY_TEXT, block['fields'] !== undefined);
    if (block['type'] === 'input') checkTextObject(block['label'], PLAIN);
    if (block['type'] === 'context')
      for (const el of (block['elements'] as Json[]) ?? []) if (el['type'] !== 'image') checkTextObject(el, ANY_TEXT);
    if (block['type'] === 'section' && len(text(block['text'])) > 3000) throw new Refusal('invalid_blocks');
    if (block['type'] === 'section' && Array.isArray(block['fields'])) {
      const fields = block['fields'] as Json[];
      if (fields.length > 10 || fields.some((f) => len(text(f)) > 2000)) throw new Refusal('invalid_blocks');
    }
    if (block['type'] === 'header' && len(text(block['text'])) > 150) throw new Refusal('invalid_blocks');
    if (block['type'] === 'context' && ((block['elements'] as Json[] | undefined)?.length ?? 0) > 10)
      throw new Refusal('invalid_blocks');
    if (block['type'] === 'input') {
      if (block['element'] === undefined) throw new Refusal('invalid_blocks');
      if (len(text(block['label'])) > 2000) throw new Refusal('invalid_blocks');
      checkTextObject(block['hint'], PLAIN, true);
      if (len(text(block['hint'])) > 2000) throw new Refusal('invalid_blocks');
    }
    const elements = elementsOf(block);
    if (block['type'] === 'actions' && elements.length > 25) throw new Refusal('invalid_blocks');
    for (const el of elements) {
      checkElement(el);
      if (el['type'] === 'button') checkTextObject(el['text'], PLAIN);
      if (el['type'] === 'button' && (len(text(el['text'])) > 75 || String(el['value'] ?? '').length > 2000))
        throw new Refusal('invalid_blocks');
      checkTextObject(el['placeholder'], PLAIN, true);
      const options = el['options'];
      if (Array.isArray(options)) {
        const cap = el['type'] === 'radio_buttons' || el['type'] === 'checkboxes' ? 10 : 100;
        if (options.length > cap) throw new Refusal('invalid_blocks');
        // Radio buttons and checkboxes may show mrkdwn; a select's options are plain text.
        const optionText = el['type'] === 'radio_buttons' || el['type'] === 'checkboxes' ? ANY_TEXT : PLAIN;
        for (const o of options as Json[]) {
          checkTextObject(o['text'], optionText);
          if (len(text(o['text'])) > 75 || String(o['value']).length > 150) throw new Refusal('invalid_blocks');
        }
      }
    }
  }
  return blocks as Json[];
}

export function checkView(view: unknown): Json {
  if (typeof view !== 'object' || view === null) throw new Refusal('invalid_arguments');
  const v = view as Json;
  try {
    checkTextObject(v['title'], PLAIN);
    checkTextObject(v['submit'], PLAIN, true);
    checkTextObject(v['close'], PLAIN, true);
  } catch {
    throw new Refusal('invalid_arguments');
  }
  if (len(text(v['title'])) > 24 || len(text(v['submit'])) > 24 || len(text(v['close'])) > 24)
    throw new Refusal('invalid_arguments');
  if (typeof v['private_metadata'] === 'string' && len(v['private_metadata']) > 3000)
    throw new Refusal('invalid_arguments');
  if (typeof v['callback_id'] === 'string' && len(v['callback_id']) > 255) throw new Refusal('invalid_arguments');
  try {
    checkBlocks(v['blocks'], 100, 'view');
  } catch (err) {
    // The views methods answer a bad block as a bad argument: `invalid_arguments` (https://api.slack.com/methods/views.open#errors).
    if (err instanceof Refusal) throw new Refusal('invalid_arguments');
    throw err;
  }
  return v;
}
