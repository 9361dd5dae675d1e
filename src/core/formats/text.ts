import { plainAskFields } from './ask-fields.js';
import { type AnswerFormatSpec, checkAgainst, wrapInPage, wrappedFromPage } from './spec.js';

/** The longest text answer kept; longer replies are refused rather than cut. */
export const MAX_TEXT_ANSWER = 16_384;

const SCHEMA = { type: 'string', minLength: 1, maxLength: MAX_TEXT_ANSWER };
const PAGE = wrapInPage({ ...SCHEMA, title: 'Your answer' });

/** A free-text answer: a string of 1 to 16,384 characters. */
export const text: AnswerFormatSpec = {
  name: 'text',
  render: { controls: 'text' },
  wrapped: true,
  wholeBody: false,
  askFields: plainAskFields,
  answerSchema: () => SCHEMA,
  check: (_question, raw) => checkAgainst(SCHEMA, raw),
  pageSchema: () => PAGE,
  fromPage: (_question, entries) => wrappedFromPage(PAGE, entries),
  // UTF-16 units ≥ characters, so the claim's length fact is conservative: a long string of astral characters is
  // refused by the claim and then accepted by the full check, which claims it.
  fastClaim: (answer) => ({
    text: typeof answer === 'string' && answer.length >= 1 && answer.length <= MAX_TEXT_ANSWER,
  }),
};
