import type { StoredInteraction } from '../../src/core/types.js';
import { clip } from '../outcome.js';
import { fitAction } from '../review-text.js';
import { offeredDecisions } from '../../src/core/formats/index.js';
import { reviewReplyWords } from '../review-words.js';
import { RenderLimitError } from './limits.js';

/**
 * A review by SMS (or WhatsApp via Twilio): one text — the tag, the question, the proposed action as readable lines,
 * and what to reply (channels/review-words.ts: APPROVE, REJECT or REJECT: why, other words for the agent), with the
 * callback page's link to edit the arguments when the review offers edit. Within SMS_MAX_SEGMENTS: the action
 * gives up argument lines first, then the question its words.
 */

/**
 * GSM-7 keeps an SMS at 153 characters a segment, UCS-2 at 67: the folding marks of the core's action text are
 * written in GSM characters here, so only the asker's own words can make a review UCS-2.
 */
/** The most characters of one argument's value in an SMS (a few lines of arguments fit three segments). */
const SMS_MAX_VALUE = 60;

const gsm = (text: string): string => text.replace(/…/g, '...').replace(/ ⏎ /g, ' / ');

/** The lines after the action: what a reply does, and the edit link. */
export function reviewTail(question: StoredInteraction, callbackUrl: string): string {
  const edit = offeredDecisions(question).includes('edit') ? `\nTo edit it: ${callbackUrl}` : '';
  return `${reviewReplyWords(question)}${edit}`;
}

/** The whole text, the first of the shrinking layouts that `fits`. */
export function renderReviewText(
  question: StoredInteraction,
  callbackUrl: string,
  head: string,
  fits: (text: string) => boolean,
): string {
  const action = question.action;
  if (action === undefined) throw new RenderLimitError('a review question without its action cannot be sent.');
  const tail = reviewTail(question, callbackUrl);
  // One character outside GSM-7 (an emoji, a curly quote) makes the whole text UCS-2, 201 units in three segments:
  // the last layouts keep only the decision words and the edit link, which a review cannot do without.
  const short = `Reply APPROVE or REJECT.${offeredDecisions(question).includes('edit') ? `\nEdit: ${callbackUrl}` : ''}`;
  for (const [q, a, words] of [
    [Infinity, 900, tail],
    [300, 400, tail],
    [160, 240, tail],
    [100, 160, tail],
    [60, 100, tail],
    [40, 60, tail],
    [40, 30, tail],
    [40, 30, short],
    [20, 20, short],
  ] as const) {
    const shown = gsm(clip(question.question, q));
    const text = `${head}${shown}\n${fitAction(action, a, gsm, undefined, SMS_MAX_VALUE)}\n${words}`;
    if (fits(text)) return text;
  }
  throw new RenderLimitError(
    'the review does not fit the SMS segments askgate sends even with its action cut to its name; ' +
      'shorten the question or the action name.',
  );
}
