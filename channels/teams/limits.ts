import { checkLimit } from '../limits.js';

export { RenderLimitError } from '../limits.js';

/**
 * Microsoft Teams (Bot Framework) numbers, each with its source on Microsoft Learn:
 * - "Format your bot messages" (learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages):
 *   a bot message is at most 40 KB, the whole payload counted as UTF-16; a larger one is refused 413
 *   `MessageSizeTooBig`.
 * - "Optimize your bot with rate limiting" (learn.microsoft.com/microsoftteams/platform/bots/how-to/rate-limit):
 *   per bot per thread (one conversation), sending: 7 per 1 s, 8 per 2 s, 60 per 30 s, 1800 per 3600 s; 50 requests
 *   per second per app per tenant; a 429 carries Retry-After.
 * - "Universal Actions for Adaptive Cards" (learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/
 *   universal-actions-for-adaptive-cards/work-with-universal-actions-for-adaptive-cards): an `adaptiveCard/action`
 *   invoke is answered in its HTTP response; Teams waits about 5 s before it shows the person an error.
 * - "Bot Framework REST API: authentication" (learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-
 *   connector-authentication): the issuer, the 5 minutes of clock skew, the `serviceurl` claim.
 */

/** A bot message's payload, in bytes of UTF-16. */
export const MESSAGE_MAX_BYTES = 40 * 1024;
/** Sends into one conversation: the tightest window askgate paces to is 60 per 30 s, one per 500 ms. */
export const PER_CONVERSATION_INTERVAL_MS = 500;
/** Requests per second for the whole app in one tenant. */
export const PER_APP_PER_SECOND = 50;
/** The invoke deadline: askgate answers well within it or answers the person "try again". */
export const INVOKE_DEADLINE_MS = 4500;
/** Clock skew accepted on a token's `exp` and `nbf`, seconds. */
export const CLOCK_SKEW_SECONDS = 300;
/** The issuer of every Bot Framework token sent to a bot. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The scope the bot's own token is asked for. */
export const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';
/** A choice's title on a button or in a choice set, cut so that 100 long choices stay within the message size. */
export const CHOICE_TITLE_MAX = 80;
/** Up to this many choices render as buttons; more as a choice set with one submit button. */
export const CHOICE_BUTTONS_MAX = 5;
/** 429s waited through for one call before it fails. */
export const MAX_429_RETRIES = 3;
/** The longest Retry-After waited through in one call, seconds; a longer one fails the call. */
export const MAX_RETRY_AFTER_SECONDS = 30;

/** The size Teams counts for a payload: its JSON as UTF-16 (two bytes per code unit). */
export const payloadBytes = (payload: unknown): number => JSON.stringify(payload).length * 2;

/** Throws RenderLimitError for a message Teams would refuse as too big. */
export function checkMessageSize(payload: unknown): void {
  checkLimit('Teams', 'the message (UTF-16 bytes)', payloadBytes(payload), MESSAGE_MAX_BYTES, 'MessageSizeTooBig');
}
