import type { JsonSchema } from '../types.js';
import { noSchema, parseChoices } from './ask-fields.js';
import { type AnswerFormatSpec, type Question, checkAgainst, wrapInPage, wrappedFromPage } from './spec.js';

const schemaOf = (question: Question): JsonSchema => ({ type: 'string', enum: question.choices ?? [] });
const pageOf = (question: Question): JsonSchema => wrapInPage({ ...schemaOf(question), title: 'Your choice' });

/** One of the question's choices, as its exact string. */
export const select: AnswerFormatSpec = {
  name: 'select',
  render: { controls: 'menu' },
  wrapped: true,
  wholeBody: false,
  askFields: (body) => ({ choices: parseChoices(body.choices), schema: noSchema(body) }),
  answerSchema: schemaOf,
  check: (question, raw) => checkAgainst(schemaOf(question), raw),
  pageSchema: pageOf,
  fromPage: (question, entries) => wrappedFromPage(pageOf(question), entries),
  // The claim compares the string with the stored choices.
  fastClaim: (answer) => ({ choice: typeof answer === 'string' ? answer : null }),
};
