/**
 * Telegram Bot API numbers, in one place. Render code checks against these and names the limit it hit.
 * Source: https://core.telegram.org/bots/api and https://core.telegram.org/bots/faq#broadcasting-to-users
 */

/** `callback_data` of an inline button: 1-64 bytes (UTF-8). */
export const CALLBACK_DATA_MAX_BYTES = 64;
/** Text of a message (after entity parsing), and of an edit. */
export const MESSAGE_TEXT_MAX = 4096;
/** Caption of a media message. */
export const CAPTION_MAX = 1024;
/** Text of an answerCallbackQuery notification. */
export const CALLBACK_ANSWER_TEXT_MAX = 200;
/** Inline keyboard buttons per message (Telegram refuses more with REPLY_MARKUP_TOO_LONG). */
export const INLINE_KEYBOARD_MAX_BUTTONS = 100;
/** Buttons per row Telegram accepts. */
export const INLINE_ROW_MAX_BUTTONS = 8;

/** How askgate lays out a select: choices per page (the rest are reached with ‹ › buttons). */
export const SELECT_PAGE_SIZE = 8;
/** A choice label at most this long shares its row with another; a longer one gets a row of its own. */
export const SELECT_SHORT_LABEL = 16;
/** The longest button label askgate shows; a longer choice is cut with an ellipsis (the answer is the whole choice). */
export const BUTTON_LABEL_MAX = 64;

/** About one message per second in one chat. */
export const PER_CHAT_PER_SECOND = 1;
/**
 * Messages one chat may get at once before pacing starts: none beyond the first. Telegram asks bots to "avoid sending
 * more than one message per second in a particular chat" (https://core.telegram.org/bots/faq), and answers 429 to a
 * burst that breaks it.
 */
export const PER_CHAT_BURST = 1;
/** About 30 messages per second over all chats. */
export const GLOBAL_PER_SECOND = 30;
/** The longest `retry_after` askgate waits through inside one call; longer ones fail the call with retryAfter. */
export const MAX_RETRY_AFTER_SECONDS = 30;
/** 429 retries per call before giving up. */
export const MAX_429_RETRIES = 3;

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError } from '../limits.js';
