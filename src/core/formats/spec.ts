import { decodeFormFields } from '../../../forms/decode.js';
import { invalidAnswer, invalidAnswers } from '../errors.js';
import { violations } from '../schema-validator.js';
import type { AnswerFacts } from '../store-port.js';
import type { AskFields, AskFieldsInput } from './ask-fields.js';
import type { AnswerFormat, InteractionRecord, JsonSchema } from '../types.js';

/** The name → value entries of a form-encoded post, in order (a name repeats for a list). */
export type PostedEntries = Array<[string, string]>;

/**
 * The facts of a question a format needs: its format, its choices (select), its schema (form, external, review) and
 * a review's action and decisions.
 */
export type Question = Pick<InteractionRecord, 'answer_format' | 'choices' | 'schema' | 'action' | 'decisions'>;

/**
 * How a channel may present the question: `buttons` (a yes/no pair), `menu` (one of the choices), `text` (a typed
 * reply), `form` (fields of a schema), `external` (answered by an outside system through the callback URL) or `review`
 * (an agent's proposed action: approve, edit, reject or respond; see `core/review-view.ts`).
 */
export type Controls = 'buttons' | 'menu' | 'text' | 'form' | 'external' | 'review';

export interface RenderHints {
  controls: Controls;
}

/**
 * What a format's answers are, in one place. A new answer format is a module implementing this (plus its entry in
 * `formats/index.ts`); every path that checks, claims, decodes or renders an answer asks the format's spec.
 */
export interface AnswerFormatSpec {
  readonly name: AnswerFormat;
  readonly render: RenderHints;
  /**
   * True when the answer is the one `answer` field of the callback page's form (so a refusal of the whole answer is
   * shown at that field); false when the answer is the form's object itself.
   */
  readonly wrapped: boolean;
  /**
   * True when the callback door takes a JSON body itself as the answer (an outside system's payload, which cannot be
   * asked to wrap it); false when it takes `{"answer": <value>}`, as the answer door does.
   */
  readonly wholeBody: boolean;
  /**
   * The ask body's format-bound fields (`choices`, `schema`) parsed for this format, in the order the ask rules
   * refuse them; a field it does not take is refused by name.
   */
  askFields(body: AskFieldsInput): AskFields;
  /** The JSON Schema an answer is checked against, or null when any answer is taken as it is. */
  answerSchema(question: Question): JsonSchema | null;
  /** Checks a raw answer and returns the value to store; throws `invalid_answer` (field and reason). */
  check(question: Question, raw: unknown): unknown;
  /** The one object schema the callback page renders and decodes (the one-field `answer` object when wrapped). */
  pageSchema(question: Question): JsonSchema;
  /** The answer in the callback page's form-encoded post (decoded by the page schema; typed, not yet checked). */
  fromPage(question: Question, entries: PostedEntries): unknown;
  /**
   * The store's one-step claim for this format: the facts of an answer its claim script checks against the stored
   * format (see `Store.claimAnswer`), or null when an answer of this format always takes read → check → claim.
   * A format whose facts are given here must be known to the claim script; `test/core/formats.test.ts` holds them
   * to each other.
   */
  readonly fastClaim: ((answer: string | boolean) => Partial<AnswerFacts>) | null;
}

/** Checks an answer against a schema: every violation is named in one `invalid_answer` (the first as its field). */
export function checkAgainst(schema: JsonSchema, answer: unknown): unknown {
  const found = violations(schema, answer);
  if (found.length > 0) throw invalidAnswers(found);
  return answer;
}

/** The page schema of a wrapped format: one required `answer` field. */
export function wrapInPage(answer: JsonSchema): JsonSchema {
  return { type: 'object', required: ['answer'], properties: { answer } };
}

/** The answer of a wrapped format's page: the decoded `answer` field, which the page requires. */
export function wrappedFromPage(pageSchema: JsonSchema, entries: PostedEntries): unknown {
  const decoded = decodeFormFields(pageSchema, entries)['answer'];
  if (decoded === undefined) throw invalidAnswer('answer', 'is required');
  return decoded;
}
