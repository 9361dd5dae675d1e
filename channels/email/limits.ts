/**
 * Email's published numbers, in one place. Sources: RFC 5322 §2.1.1 (line length), RFC 5321 §4.5.3.1 (address
 * sizes), RFC 3464 (delivery status notifications), RFC 5321 §4.2.1 (reply codes: 4yz transient, 5yz permanent).
 */

/** RFC 5322 §2.1.1: a line is at most 998 characters; nodemailer folds headers and encodes bodies to keep it. */
export const LINE_MAX = 998;
/** askgate's subject: the question's first line, cut here (clients show about 60-80 characters of it). */
export const SUBJECT_MAX = 120;
/** The hidden preview line most clients show beside the subject (Gmail shows about 100 characters). */
export const PREHEADER_MAX = 140;
/** The largest raw message the inbound door takes: a reply with its quoted history, not its attachments. */
export const INBOUND_MAX_BYTES = 10 * 1024 * 1024;
/** How much of a reply's new text is read as the answer (a text answer longer than this is cut). */
export const REPLY_TEXT_MAX = 8000;

/** How many characters of a review's proposed action the message shows (the review page shows it all). */
export const REVIEW_DETAILS_MAX = 3000;

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError } from '../limits.js';
