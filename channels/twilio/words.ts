import type { DispatchOutcome } from '../contract.js';
import { replyHint, tellNotTaken } from '../replies.js';
import { tagOf } from './render.js';

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

/** An outcome a reply is answered about: one that found a question of this number. */
export type Told = Exclude<DispatchOutcome, { kind: 'ready' | 'not_found' | 'wrong_surface' }>;

/** The reply a person's answer gets, tagged with the question it went to. */
export function tell(outcome: Told): string {
  const stored = outcome.question;
  const tag = `[#${tagOf(stored.id)}] `;
  switch (outcome.kind) {
    case 'answered':
      return `${tag}Answer recorded. Thank you.`;
    case 'closed':
      if (outcome.status === 'answered') return `${tag}This question is already answered.`;
      return `${tag}${outcome.status === 'cancelled' ? 'This question was cancelled.' : 'This question is closed.'}`;
    case 'refused':
      if (outcome.refusal.code === 'invalid_answer') return `${tag}${replyHint(stored, outcome.message)}`;
      return `${tag}${tellNotTaken(outcome)}`;
    case 'voted':
      return `${tag}${tellNotTaken(outcome)}`;
  }
}
