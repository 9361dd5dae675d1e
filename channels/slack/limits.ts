import { RenderLimitError, checkLimit as check } from '../limits.js';

/**
 * Slack platform numbers, in one place. Render code checks against these at render time and names the limit it hit
 * (`RenderLimitError`), so a question Slack would refuse fails before a call is made, with the reason in the message.
 * Sources: https://api.slack.com/reference/block-kit/blocks, /block-elements, /composition-objects,
 * https://api.slack.com/reference/surfaces/views, https://api.slack.com/methods/chat.postMessage (rate limits),
 * https://api.slack.com/apis/rate-limits (tiers).
 */

/** Blocks in one message. */
export const MESSAGE_BLOCKS_MAX = 50;
/** Blocks in one modal view. */
export const VIEW_BLOCKS_MAX = 100;
/** `text` of a section block (mrkdwn). */
export const SECTION_TEXT_MAX = 3000;
/** `text` of a context block element. */
export const CONTEXT_TEXT_MAX = 3000;
/** The top-level `text` of chat.postMessage (the notification and fallback); Slack truncates past 40,000. */
export const MESSAGE_TEXT_MAX = 40_000;
/** Elements in one actions block. */
export const ACTIONS_ELEMENTS_MAX = 25;
/** A button's label. */
export const BUTTON_TEXT_MAX = 75;
/** A button's `value`. */
export const BUTTON_VALUE_MAX = 2000;
/** `action_id` and `block_id`. */
export const ACTION_ID_MAX = 255;
export const BLOCK_ID_MAX = 255;
/** An option's text and value (static_select, radio_buttons, checkboxes, multi_static_select). */
export const OPTION_TEXT_MAX = 75;
export const OPTION_VALUE_MAX = 150;
/** Options in a static_select / multi_static_select. */
export const SELECT_OPTIONS_MAX = 100;
/** Options in a radio_buttons or checkboxes group. */
export const RADIO_OPTIONS_MAX = 10;
export const CHECKBOX_OPTIONS_MAX = 10;
/** A modal's title, submit and close labels. */
export const VIEW_TITLE_MAX = 24;
export const VIEW_BUTTON_MAX = 24;
/** A view's `private_metadata` and `callback_id`. */
export const PRIVATE_METADATA_MAX = 3000;
export const CALLBACK_ID_MAX = 255;
/** An input block's label and hint. */
export const INPUT_LABEL_MAX = 2000;
export const INPUT_HINT_MAX = 2000;
/** A placeholder. */
export const PLACEHOLDER_MAX = 150;
/** plain_text_input `max_length` / `min_length` ceiling. */
export const TEXT_INPUT_LENGTH_MAX = 3000;

/**
 * How askgate lays out a select question: up to this many choices become buttons (each label within
 * BUTTON_TEXT_MAX); past it, or with a longer label, one static_select holds them all.
 */
export const SELECT_BUTTONS_MAX = 5;

/** A trigger_id is good for 3 seconds after the interaction (views.open must be called inside it). */
export const TRIGGER_WINDOW_MS = 3000;
/** Slack wants every Events API and interactivity request acknowledged within 3 seconds. */
export const ACK_DEADLINE_MS = 3000;
/** askgate acknowledges on its own this long after a request arrives if no handler has (headroom under 3 s). */
export const ACK_FALLBACK_MS = 2500;
/** The signing rule's staleness window: a request whose X-Slack-Request-Timestamp is further off is refused. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

/** About one message per second per channel (chat.postMessage's "special" limit; short bursts tolerated). */
export const PER_CHANNEL_PER_SECOND = 1;
export const PER_CHANNEL_BURST = 3;
/**
 * Per-method tiers (calls per minute, per workspace): Tier 2 ≈ 20, Tier 3 ≈ 50, Tier 4 ≈ 100.
 * views.open is deliberately absent: it must run inside the trigger window and is never queued.
 */
export const METHOD_PER_MINUTE: Readonly<Record<string, number>> = {
  'auth.test': 100, // Tier 4
  'chat.postMessage': 600, // "special": paced per channel instead; this only caps a workspace-wide burst
  'chat.update': 50, // Tier 3
  'chat.postEphemeral': 100, // Tier 4
  'views.update': 100, // Tier 4
  'views.push': 100, // Tier 4
};
/** The longest Retry-After askgate waits through inside one call; a longer one fails the call with retryAfter. */
export const MAX_RETRY_AFTER_SECONDS = 30;
/** 429 retries per call before giving up. */
export const MAX_429_RETRIES = 3;

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError };

/** Throws RenderLimitError when `actual` exceeds `limit`, naming Slack's limit. */
export function checkLimit(what: string, actual: number, limit: number, limitName: string): void {
  check('Slack', what, actual, limit, limitName);
}

/** Code points, as Slack counts characters. */
export function chars(text: string): number {
  return [...text].length;
}

/** The shared clip (by code points, as Slack counts characters). */
export { clip } from '../outcome.js';
