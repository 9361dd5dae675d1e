import { invalidAnswer } from '../errors.js';
import { plainAskFields } from './ask-fields.js';
import { type AnswerFormatSpec, checkAgainst, wrapInPage } from './spec.js';

const SCHEMA = { type: 'boolean' };

/** Yes or no: a JSON boolean. */
export const confirm: AnswerFormatSpec = {
  name: 'confirm',
  render: { controls: 'buttons' },
  wrapped: true,
  wholeBody: false,
  askFields: plainAskFields,
  answerSchema: () => SCHEMA,
  check: (_question, raw) => checkAgainst(SCHEMA, raw),
  pageSchema: () => wrapInPage({ ...SCHEMA, title: 'Your answer' }),
  // The page's two buttons post answer=true / answer=false; anything else stays a string, which the boolean schema
  // then refuses.
  fromPage: (_question, entries) => {
    const value = entries.find(([name]) => name === 'answer')?.[1];
    if (value === undefined) throw invalidAnswer('answer', 'is required');
    return value === 'true' ? true : value === 'false' ? false : value;
  },
  fastClaim: (answer) => ({ boolean: typeof answer === 'boolean' }),
};
