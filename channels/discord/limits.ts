import { checkLimit as checkPlatformLimit } from '../limits.js';

/**
 * Discord platform numbers, in one place. Render code checks against these at render time and names the limit it
 * hit (the one `RenderLimitError` of channels/limits.ts), so a message Discord would refuse fails before a call is
 * made, with the reason in the message. Sources: Discord developer docs, "Message Components" (action rows,
 * buttons, string selects, text inputs), "Receiving and Responding" (interaction and callback types, the modal
 * object), "Channel resources → Create Message" (content), "Rate Limits" (429 `retry_after`, `X-RateLimit-*`).
 */

/** `content` of a message. */
export const CONTENT_MAX = 2000;
/** Action rows (top-level components) in one message. */
export const MESSAGE_ROWS_MAX = 5;
/** Buttons in one action row. */
export const ROW_BUTTONS_MAX = 5;
/** A button's label. */
export const BUTTON_LABEL_MAX = 80;
/** `custom_id` of any component, and of a modal. */
export const CUSTOM_ID_MAX = 100;
/** Options in one string select. */
export const SELECT_OPTIONS_MAX = 25;
/** An option's label, value and description. */
export const OPTION_LABEL_MAX = 100;
export const OPTION_VALUE_MAX = 100;
/** A string select's placeholder. */
export const SELECT_PLACEHOLDER_MAX = 150;
/** A modal's title. */
export const MODAL_TITLE_MAX = 45;
/** Components (action rows, each holding one text input) in one modal. */
export const MODAL_ROWS_MAX = 5;
/** A text input's label and placeholder. */
export const TEXT_INPUT_LABEL_MAX = 45;
export const TEXT_INPUT_PLACEHOLDER_MAX = 100;
/** A text input's `min_length` / `max_length` ceiling (and of its prefilled `value`). */
export const TEXT_INPUT_LENGTH_MAX = 4000;

/** The interaction types askgate reads (`type` of an incoming interaction). */
export const INTERACTION = { PING: 1, APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, MODAL_SUBMIT: 5 } as const;
/** The interaction callback types askgate answers with. */
export const CALLBACK = {
  PONG: 1,
  CHANNEL_MESSAGE_WITH_SOURCE: 4,
  DEFERRED_UPDATE_MESSAGE: 6,
  UPDATE_MESSAGE: 7,
  MODAL: 9,
} as const;
/** Component types. */
export const COMPONENT = { ACTION_ROW: 1, BUTTON: 2, STRING_SELECT: 3, TEXT_INPUT: 4 } as const;
/** Button styles (Link buttons carry a `url` and no `custom_id`). */
export const BUTTON_STYLE = { PRIMARY: 1, SECONDARY: 2, SUCCESS: 3, DANGER: 4, LINK: 5 } as const;
/** Text input styles. */
export const TEXT_STYLE = { SHORT: 1, PARAGRAPH: 2 } as const;
/** Message flag: only the person who acted sees the message. */
export const EPHEMERAL_FLAG = 64;

/**
 * How askgate lays out a select question: up to this many choices, each within BUTTON_LABEL_MAX, become buttons in
 * one row; past it, string selects of SELECT_OPTIONS_MAX options each, one per row, up to MESSAGE_ROWS_MAX rows
 * (125 choices, above the 100 an ask may carry).
 */
export const SELECT_BUTTONS_MAX = 5;

/**
 * The signature's staleness window: an interaction whose X-Signature-Timestamp is further off is refused, so a
 * captured request cannot be replayed later (Discord sends interactions at once; it documents no window itself).
 */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;
/**
 * The longest rate-limit wait askgate sits through inside one call (@discordjs/rest queues and retries a 429 by
 * itself); a longer one fails the call with `retryAfter`, so an asker gets its 502 instead of hanging.
 */
export const MAX_RATE_LIMIT_WAIT_MS = 5000;
/** A REST call that has not answered in this long is abandoned (a channel delivery must not hold an ask open). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** Throws RenderLimitError when `actual` exceeds `limit`, naming the thing, Discord and the limit. */
export function checkLimit(what: string, actual: number, limit: number, limitName: string): void {
  checkPlatformLimit('Discord', what, actual, limit, limitName);
}

/** Characters as Discord counts them (code points). */
export function chars(text: string): number {
  return [...text].length;
}

/** The shared clip (by code points). */
export { clip } from '../outcome.js';

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError } from '../limits.js';
