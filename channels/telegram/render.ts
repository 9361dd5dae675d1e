import type { ForceReply, InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import {
  BUTTON_LABEL_MAX,
  CALLBACK_DATA_MAX_BYTES,
  INLINE_KEYBOARD_MAX_BUTTONS,
  INLINE_ROW_MAX_BUTTONS,
  MESSAGE_TEXT_MAX,
  SELECT_PAGE_SIZE,
  SELECT_SHORT_LABEL,
  RenderLimitError,
} from './limits.js';
import { encodeActionCode, type ActionPick } from '../../src/core/action-code.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { clip, outcomeLine, voteCountLine } from '../outcome.js';
import { type Controls, renderHints } from '../../src/core/formats/index.js';
import { REVIEW_HINT } from '../../src/core/review-view.js';
import { renderReview, reviewMessageText } from './review.js';

export { clip };

/**
 * Question → Telegram message, as data (no API calls here). Every button's callback_data is an action code
 * (`<interaction id>:<pick>`, src/core/action-code.ts; about 20 bytes), so a tap finds its question without any lookup.
 */

export interface RenderedMessage {
  text: string;
  reply_markup?: InlineKeyboardMarkup | ForceReply;
}

/** The line under a question, by the controls its format's render hint asks for. */
const HINT: Readonly<Record<Controls, string>> = {
  text: 'Reply to this message with your answer.',
  buttons: 'Tap Yes or No, or reply "yes" or "no".',
  menu: 'Tap a choice, or reply with its name or number.',
  form: 'Tap the button to open the form.',
  external: 'Reply to this message with your answer.',
  review: REVIEW_HINT,
};

/** A chat id of a private chat is the user's id, a positive number; groups and channels are negative or `@name`. */
export function isPrivateChat(chatId: string): boolean {
  return /^\d+$/.test(chatId);
}

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** A button's callback_data: the action code (src/core/action-code.ts), within Telegram's 64 bytes. */
export function callbackData(interactionId: string, pick: ActionPick): string {
  const data = encodeActionCode(interactionId, pick);
  if (utf8Bytes(data) > CALLBACK_DATA_MAX_BYTES) {
    throw new RenderLimitError(
      `callback_data "${data}" has ${utf8Bytes(data)} bytes; Telegram allows ${CALLBACK_DATA_MAX_BYTES}.`,
    );
  }
  return data;
}

/** The question with a hint under it, cut so the whole stays within the 4096-character message limit. */
export function questionText(
  interaction: Pick<StoredInteraction, 'question' | 'answer_format'>,
  footer: string = HINT[renderHints(interaction).controls],
): string {
  const tail = `\n\n${footer}`;
  return `${clip(interaction.question, MESSAGE_TEXT_MAX - tail.length)}${tail}`;
}

/** One page of a select's buttons: short labels two to a row, long ones alone, and ‹ › to move between pages. */
export function selectKeyboard(
  interaction: Pick<StoredInteraction, 'id' | 'choices'>,
  page: number,
): InlineKeyboardMarkup {
  const choices = interaction.choices ?? [];
  const pages = Math.max(1, Math.ceil(choices.length / SELECT_PAGE_SIZE));
  const current = Math.min(Math.max(page, 0), pages - 1);
  const rows: InlineKeyboardButton[][] = [];
  let row: InlineKeyboardButton[] = [];
  const start = current * SELECT_PAGE_SIZE;
  choices.slice(start, start + SELECT_PAGE_SIZE).forEach((choice, i) => {
    const button = {
      text: clip(choice, BUTTON_LABEL_MAX),
      callback_data: callbackData(interaction.id, { kind: 'choice', index: start + i }),
    };
    const short = [...choice].length <= SELECT_SHORT_LABEL;
    if (!short || row.length === 2) {
      if (row.length > 0) rows.push(row);
      row = [];
    }
    row.push(button);
    if (!short) {
      rows.push(row);
      row = [];
    }
  });
  if (row.length > 0) rows.push(row);
  if (pages > 1) {
    const nav: InlineKeyboardButton[] = [];
    if (current > 0)
      nav.push({ text: '‹ Back', callback_data: callbackData(interaction.id, { kind: 'page', page: current - 1 }) });
    nav.push({
      text: `${current + 1}/${pages}`,
      callback_data: callbackData(interaction.id, { kind: 'page', page: current }),
    });
    if (current < pages - 1)
      nav.push({ text: 'More ›', callback_data: callbackData(interaction.id, { kind: 'page', page: current + 1 }) });
    rows.push(nav);
  }
  checkKeyboard(rows);
  return { inline_keyboard: rows };
}

function checkKeyboard(rows: InlineKeyboardButton[][]): void {
  const count = rows.reduce((n, r) => n + r.length, 0);
  if (count > INLINE_KEYBOARD_MAX_BUTTONS)
    throw new RenderLimitError(`the keyboard has ${count} buttons; Telegram allows ${INLINE_KEYBOARD_MAX_BUTTONS}.`);
  const wide = rows.find((r) => r.length > INLINE_ROW_MAX_BUTTONS);
  if (wide !== undefined)
    throw new RenderLimitError(`a keyboard row has ${wide.length} buttons; Telegram allows ${INLINE_ROW_MAX_BUTTONS}.`);
}

/** The message a question is delivered as. `chatId` decides web_app (private chats only) or a URL button (groups). */
export function renderQuestion(interaction: StoredInteraction, chatId: string, callbackUrl: string): RenderedMessage {
  const text = questionText(interaction);
  // The controls come from the format's render hint (src/core/formats/).
  switch (renderHints(interaction).controls) {
    case 'buttons':
      return {
        text,
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Yes', callback_data: callbackData(interaction.id, { kind: 'confirm', value: true }) },
              { text: 'No', callback_data: callbackData(interaction.id, { kind: 'confirm', value: false }) },
            ],
          ],
        },
      };
    case 'menu':
      return { text, reply_markup: selectKeyboard(interaction, 0) };
    case 'form': {
      // Telegram refuses web_app buttons outside private chats (BUTTON_TYPE_INVALID); a group gets a plain link.
      const button: InlineKeyboardButton = isPrivateChat(chatId)
        ? { text: 'Open the form', web_app: { url: callbackUrl } }
        : { text: 'Open the form', url: callbackUrl };
      return { text, reply_markup: { inline_keyboard: [[button]] } };
    }
    case 'review':
      return renderReview(interaction, isPrivateChat(chatId), callbackUrl);
    case 'text':
    case 'external':
      // ForceReply makes the person's client open a reply to this message, so the answer quotes the question.
      return { text, reply_markup: { force_reply: true, input_field_placeholder: 'Your answer' } };
  }
}

/** The question as it reads once it has ended: the hint gives way to the outcome, and no buttons remain. */
export function outcomeText(interaction: StoredInteraction): string {
  // A review keeps its action in view, with the arguments it was decided with.
  if (interaction.answer_format === 'review') return reviewMessageText(interaction);
  return questionText(interaction, outcomeLine(interaction) ?? HINT[renderHints(interaction).controls]);
}

/** A pending quorum question with its live vote count above the hint; the keyboard is the question's own. */
export function votesText(interaction: StoredInteraction): string {
  const hint = HINT[renderHints(interaction).controls];
  const count = voteCountLine(interaction);
  return questionText(interaction, count === null ? hint : `${count}\n${hint}`);
}
