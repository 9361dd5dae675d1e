import type { OfferOutcome } from '../contract.js';
import { replyHint, tellNotTaken } from '../replies.js';
import { tagOf } from './render.js';
import type { StoredInteraction } from '../../src/core/types.js';

/** How the Twilio channel reads a reply's words and what it says back: keywords, quick-reply payloads, error codes. */

/** A reply's keyword as STOP/HELP/START lists hold them: trimmed, lowercase, without trailing punctuation. */
export const keyword = (body: string): string =>
  body
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');

/** Twilio's error code for a number that replied STOP. */
export const OPTED_OUT = '21610';

/** Words for the Twilio error codes a failed delivery reports most; any other is named by its code. */
export function twilioErrorWords(code: string | null): string {
  switch (code) {
    case OPTED_OUT:
      return 'the recipient replied STOP: Twilio sends nothing to this number until it texts START.';
    case '30003':
      return 'the handset is unreachable (off, or out of coverage).';
    case '30005':
      return 'the number is unknown or no longer exists.';
    case '30006':
      return 'the number is a landline or cannot receive SMS.';
    case '30007':
      return 'the carrier filtered the message.';
    default:
      return code === null ? 'Twilio reported the message undelivered.' : `Twilio error ${code}.`;
  }
}

/** A quick-reply payload askgate wrote: `<id>:y`, `<id>:n` or `<id>:s<index>`. */
export function buttonAnswer(stored: StoredInteraction, payload: string): unknown {
  const code = payload.slice(stored.id.length + 1);
  if (code === 'y' || code === 'n') return code === 'y';
  if (/^s\d+$/.test(code)) return (stored.choices ?? [])[Number(code.slice(1))];
  return code;
}

/** The reply a person's answer gets, tagged with the question it went to. */
export function tell(outcome: OfferOutcome, stored: StoredInteraction): string {
  const tag = `[#${tagOf(stored.id)}] `;
  switch (outcome.kind) {
    case 'answered':
      return `${tag}Answer recorded. Thank you.`;
    case 'already_answered':
      return `${tag}This question is already answered.`;
    case 'closed':
      return `${tag}${outcome.status === 'cancelled' ? 'This question was cancelled.' : 'This question is closed.'}`;
    case 'invalid':
      return `${tag}${replyHint(stored, outcome.message)}`;
    case 'voted':
    case 'not_an_approver':
      return `${tag}${tellNotTaken(outcome)}`;
  }
}
