import { invalidAnswer } from '../errors.js';
import type { AnswerFacts } from '../store-port.js';
import type { AnswerFormat } from '../types.js';
import { confirm } from './confirm.js';
import { external } from './external.js';
import { form } from './form.js';
import { review } from './review.js';
import type { AnswerFormatSpec, Question } from './spec.js';
import { select } from './select.js';
import { text } from './text.js';

export type { AnswerFormatSpec, Controls, PostedEntries, Question, RenderHints } from './spec.js';
export { MAX_TEXT_ANSWER } from './text.js';
export { applyVisibility } from './visibility.js';
export { checkReviewAnswer, offeredDecisions, reviewPageSchema } from './review.js';
export { REVIEW_LIMITS, defaultDecisions } from './review-fields.js';

/** Every answer format by name; the type makes a format without its module a compile error. */
const FORMATS: Readonly<Record<AnswerFormat, AnswerFormatSpec>> = { text, select, confirm, form, external, review };

/** The spec of an answer format. */
export function formatOf(name: AnswerFormat): AnswerFormatSpec {
  return FORMATS[name];
}

/** The formats whose answers the store's one-step claim checks itself (the rest take read → check → claim). */
export const FAST_CLAIM_FORMATS: readonly AnswerFormat[] = Object.values(FORMATS)
  .filter((spec) => spec.fastClaim !== null)
  .map((spec) => spec.name);

/** How a question presents its answer controls to a channel. */
export function renderHints(question: Pick<Question, 'answer_format'>): AnswerFormatSpec['render'] {
  return FORMATS[question.answer_format].render;
}

/**
 * Checks a raw answer against the question's format and schema and returns the value to store.
 * Throws `invalid_answer` naming the path and the reason; nothing is written by this function.
 */
export function checkAnswer(question: Question, raw: unknown): unknown {
  if (raw === undefined) throw invalidAnswer('', 'an answer is required; send {"answer": <value>}');
  return FORMATS[question.answer_format].check(question, raw);
}

/**
 * The facts the store's one-step claim checks, for an offer whose question has not been read: every fast format's
 * facts of this answer, so whichever format the stored question has, the claim can check it. Null when the answer
 * cannot take the claim: a string that is not well-formed UTF-16 would not reach Redis as itself.
 */
export function answerFacts(answer: unknown): AnswerFacts | null {
  const facts: AnswerFacts = { boolean: false, text: false, choice: null };
  if (typeof answer === 'string') {
    // String.prototype.isWellFormed is in Node 20; the compiler's lib (ES2022) does not declare it yet.
    if (!(answer as string & { isWellFormed(): boolean }).isWellFormed()) return null;
  } else if (typeof answer !== 'boolean') return facts;
  for (const spec of Object.values(FORMATS)) if (spec.fastClaim !== null) Object.assign(facts, spec.fastClaim(answer));
  return facts;
}

/** True when some fast format could accept an answer with these facts, so the one-step claim is worth its trip. */
export function claimWorthwhile(facts: AnswerFacts): boolean {
  return facts.boolean || facts.text || facts.choice !== null;
}
