import type { InlineKeyboardButton } from 'grammy/types';
import { CALLBACK_DATA_MAX_BYTES, MESSAGE_TEXT_MAX, RenderLimitError } from './limits.js';
import { answersOnTap, reviewButtons } from '../../src/core/review-view.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { decidedAction, reviewFooter, reviewText } from '../review-text.js';
import { offeredDecisions } from '../../src/core/formats/index.js';
import { labelList } from '../review-words.js';
import type { RenderedMessage } from './render.js';

/**
 * A review on Telegram: the question, the proposed action as readable lines (within the 4096-character message),
 * and one row of buttons — Approve and Reject answer on the tap (their callback_data an action code,
 * `<id>:a` / `<id>:r`), Edit opens the callback page's edit form pre-filled with the proposed arguments (a web_app in
 * a private chat, a URL button in a group, as a form's button). Respond is a reply to the message.
 */

/** The line under a pending review: what the buttons do and what a reply means. */
export function reviewHint(question: StoredInteraction): string {
  const offered = offeredDecisions(question);
  const taps = offered.filter((d) => d !== 'respond');
  const tap = taps.length === 0 ? '' : `Tap ${labelList(taps)}.`;
  const reply = offered.includes('respond') ? ' Reply to this message with words for the agent.' : '';
  return `${tap}${reply}`.trim();
}

function data(code: string): string {
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > CALLBACK_DATA_MAX_BYTES)
    throw new RenderLimitError(
      `callback_data "${code}" has ${bytes} bytes; Telegram allows ${CALLBACK_DATA_MAX_BYTES}.`,
    );
  return code;
}

/** The review's text: the outcome in place of the hint once decided (an edit shows the arguments it chose). */
export function reviewMessageText(question: StoredInteraction): string {
  const action = decidedAction(question);
  if (action === null) throw new RenderLimitError('a review question without its action cannot be shown.');
  return reviewText({
    question: question.question,
    action,
    footer: reviewFooter(question, reviewHint(question)),
    max: MESSAGE_TEXT_MAX,
  });
}

/** The message a review is delivered as; `edit` only when the review offers it. */
export function renderReview(question: StoredInteraction, privateChat: boolean, callbackUrl: string): RenderedMessage {
  const row: InlineKeyboardButton[] = reviewButtons(question.id, offeredDecisions(question)).flatMap(
    (button): InlineKeyboardButton[] => {
      if (answersOnTap(button.decision)) return [{ text: button.label, callback_data: data(button.code) }];
      if (button.decision !== 'edit') return [];
      // Telegram refuses web_app buttons outside private chats (BUTTON_TYPE_INVALID); a group gets a plain link.
      return [
        privateChat ? { text: button.label, web_app: { url: callbackUrl } } : { text: button.label, url: callbackUrl },
      ];
    },
  );
  return { text: reviewMessageText(question), reply_markup: { inline_keyboard: row.length === 0 ? [] : [row] } };
}
