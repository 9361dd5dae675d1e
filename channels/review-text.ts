import { actionText, reviewAnswerOf } from '../src/core/review-view.js';
import type { ReviewAction, StoredInteraction } from '../src/core/types.js';
import { clip, outcomeLine, type OutcomeStyle } from './outcome.js';

/**
 * A review's message text on a chat channel, within the platform's limit: the question, the proposed action as the
 * core writes it (`actionText`: the name, the description, one `key: value` line per argument, long values folded
 * with "…", "… and N more" for lines that do not fit), and a footer (the hint, or the outcome once decided). A
 * platform wraps the action in its own markup (`wrap`: a code block, escaping) and measures as it counts.
 */
export interface ReviewTextOptions {
  question: string;
  action: ReviewAction;
  footer: string;
  /** The platform's limit for the whole text. */
  max: number;
  /** The action's text in the platform's markup (escaped, in a code block); default as it is. */
  wrap?: (action: string) => string;
  /** The platform's escaping of the question and footer; default none. */
  escape?: (words: string) => string;
  /** How the platform counts (code points by default; UTF-16 units for SMS). */
  measure?: (text: string) => number;
  /** The most characters of one argument's value. */
  maxValue?: number;
}

const codePoints = (text: string): number => [...text].length;

/**
 * The text, the action given at least half of what the question does not need: a long question keeps its start,
 * and the arguments (what the person decides on) keep as many lines as fit. Never longer than `max`.
 */
export function reviewText(options: ReviewTextOptions): string {
  const measure = options.measure ?? codePoints;
  const wrap = options.wrap ?? ((a: string) => a);
  const escaped = options.escape ?? ((w: string) => w);
  const footer = escaped(options.footer);
  const fixed = measure(footer) + 4;
  const question = escaped(options.question);
  const room = Math.max(options.max - fixed, 0);
  const questionShare = Math.min(measure(question), Math.floor(room / 2));
  const action = fitAction(options.action, room - questionShare, wrap, measure, options.maxValue);
  const questionRoom = Math.max(room - measure(action), 0);
  const shownQuestion = measure(question) <= questionRoom ? question : clipTo(question, questionRoom, measure);
  return `${shownQuestion}\n\n${action}\n\n${footer}`;
}

/**
 * The action's text in the platform's markup within `room`: markup can lengthen it (escaping), so the budget given
 * to `actionText` shrinks by the overflow until the wrapped text fits.
 */
export function fitAction(
  action: ReviewAction,
  room: number,
  wrap: (action: string) => string = (a) => a,
  measure: (text: string) => number = codePoints,
  maxValue?: number,
): string {
  let budget = room - measure(wrap(''));
  let text = wrap(actionText(action, withValue({ budget: Math.max(budget, 0) }, maxValue)));
  for (let i = 0; i < 8 && measure(text) > room && budget > 0; i++) {
    budget -= measure(text) - room;
    text = wrap(actionText(action, withValue({ budget: Math.max(budget, 0) }, maxValue)));
  }
  return text;
}

function withValue(options: { budget: number }, maxValue: number | undefined): { budget: number; maxValue?: number } {
  return maxValue === undefined ? options : { ...options, maxValue };
}

/** Cuts to `max` as the platform measures (code points, or UTF-16 units). */
function clipTo(text: string, max: number, measure: (t: string) => number): string {
  let cut = clip(text, max);
  while (measure(cut) > max && cut.length > 1) cut = clip(cut, [...cut].length - 1);
  return cut;
}

/**
 * The action as the outcome shows it: an edit shows the arguments it was decided with (the person's), any other
 * decision the proposed ones.
 */
export function decidedAction(question: Pick<StoredInteraction, 'action' | 'result'>): ReviewAction | null {
  const action = question.action;
  if (action === undefined) return null;
  const answer = reviewAnswerOf(question.result?.answer);
  return answer?.decision === 'edit' ? { ...action, args: answer.args } : action;
}

/** The outcome line of a review, or `pending` while it is open (the hint). */
export function reviewFooter(
  question: Parameters<typeof outcomeLine>[0],
  pending: string,
  style: OutcomeStyle = {},
): string {
  return outcomeLine(question, style) ?? pending;
}
