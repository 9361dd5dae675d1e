import { decodeFormFields } from '../../../forms/decode.js';
import { invalidAnswer } from '../errors.js';
import { noChoices, parseSchema } from './ask-fields.js';
import type { AnswerFormatSpec } from './spec.js';
import { checkSchemaAnswer, schemaPage } from './form.js';

/**
 * An answer delivered by an outside system to the callback URL: the body itself (checked against the pinned schema
 * when there is one). A person answers it on the callback page: a form for a pinned schema, else a confirm button.
 */
export const external: AnswerFormatSpec = {
  name: 'external',
  render: { controls: 'external' },
  wrapped: false,
  wholeBody: true,
  // A pinned schema is optional: without one, the payload is taken as it is.
  askFields: (body) => ({
    choices: noChoices(body),
    schema: body.schema === undefined ? null : parseSchema(body.schema),
  }),
  answerSchema: (question) => question.schema,
  check: checkSchemaAnswer,
  pageSchema: schemaPage,
  fromPage: (question, entries) => {
    if (question.schema !== null) return decodeFormFields(schemaPage(question), entries);
    // The confirm page of an external question without a schema posts one hidden entry: confirmed=true.
    if (entries.find(([name]) => name === 'confirmed')?.[1] !== 'true')
      throw invalidAnswer('', 'the confirm page sends confirmed=true');
    return { confirmed: true };
  },
  // Only its callback door answers it, where the verifier runs first; that door holds the record already.
  fastClaim: null,
};
