/**
 * Twilio Programmable Messaging numbers, in one place. Render code checks against these and names the limit it hit.
 * Sources: https://www.twilio.com/docs/glossary/what-sms-character-limit and .../messaging/api/message-resource.
 */

/** One GSM-7 SMS segment; a concatenated message has 153 per segment (7 go to the header). */
export const GSM_SINGLE = 160;
export const GSM_SEGMENT = 153;
/** Any character outside GSM-7 (an emoji, most accents) makes the whole message UCS-2: 70, or 67 per segment. */
export const UCS2_SINGLE = 70;
export const UCS2_SEGMENT = 67;
/** Twilio refuses a Body over 1600 characters (error 21617). */
export const BODY_MAX = 1600;
/** askgate keeps an SMS question within this many segments (cost, and carriers reassemble long ones badly). */
export const SMS_MAX_SEGMENTS = 3;
/** A WhatsApp-via-Twilio message is not segmented; its body limit is WhatsApp's. */
export const WHATSAPP_BODY_MAX = 1600;

/**
 * A sender number's throughput, messages per second, every process together: a US long code sends 1 segment/s (toll
 * free 3, a short code 100); Twilio queues the excess itself, so askgate paces to it rather than build a queue there.
 */
export const SENDER_MESSAGES_PER_SECOND = 1;
/** Twilio's REST refusal for too many requests at once on the account (HTTP 429). */
export const ERROR_TOO_MANY_REQUESTS = 20429;

/** Twilio error codes askgate reacts to. */
export const ERROR_UNSUBSCRIBED = 21610; // the number replied STOP: Twilio refuses to send until it replies START

/** Keywords the carrier and Twilio treat as opt-out / opt-in / help: never read as an answer. */
export const OPT_OUT_WORDS = ['stop', 'stopall', 'unsubscribe', 'cancel', 'end', 'quit', 'optout', 'revoke'];
export const OPT_IN_WORDS = ['start', 'unstop'];
export const HELP_WORDS = ['help', 'info'];

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError } from '../limits.js';
