/**
 * From what arrived at the callback door to the answer offered: a JSON body (an outside system, a script) or the
 * form-encoded submit of the callback page. Both are untrusted input: parsed as data, never evaluated, and every
 * check that matters is the schema check that follows in `offerAnswer`.
 */
import type { FieldInput } from '../../forms/check.js';
import { RESERVED_PREFIX } from '../../forms/decode.js';
import { flattenFields, formFields } from '../../forms/fields.js';
import { generalSentence, refusalSentence } from '../../forms/refusal.js';
import { ANSWER_ROOT, type AnswerViolation, type AskgateError, invalid } from '../core/errors.js';
import { formatOf, type PostedEntries } from '../core/formats/index.js';
import type { InteractionRecord, JsonSchema } from '../core/types.js';
import type { Refusal } from './pages.js';

type Question = Pick<InteractionRecord, 'answer_format' | 'schema' | 'choices'>;
export type Entries = PostedEntries;

/**
 * The answer in a JSON body. An external question takes the body itself: the outside system's payload is the
 * answer, verbatim (it cannot be asked to wrap it) — except a JSON object whose only key is `answer`, which is the
 * envelope askgate's own bridge (and any script) sends, and is unwrapped. Every other format takes
 * `{"answer": <value>}`, exactly as the authenticated answer door does.
 */
export function answerFromJson(question: Question, body: unknown): unknown {
  if (!formatOf(question.answer_format).wholeBody) return unwrapAnswer(body);
  // The bridge (and any sender that wraps) posts {"answer": <payload>}; an outside system's own body is taken as is.
  return isEnvelope(body) ? body.answer : body;
}

function isEnvelope(body: unknown): body is { answer: unknown } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'answer';
}

/** The answer door's body as JSON Schema: `{"answer": <value>}` and nothing else, as `unwrapAnswer` takes it. */
export const ANSWER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['answer'],
  properties: {
    answer: {
      description:
        "A string for text and select (one of the choices), true/false for confirm, an object matching the form's " +
        'schema for form, the payload for external, a ReviewAnswer for review ({"decision": "approve"}, ' +
        '{"decision": "edit", "args": {...}}, {"decision": "reject", "message"?}, {"decision": "respond", "message"}).',
    },
  },
} as const satisfies JsonSchema;

/** The value of an `{"answer": <value>}` body (the answer door's and the callback door's); anything else is a 400. */
export function unwrapAnswer(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('answer' in body)) {
    throw invalid(
      'answer',
      'send {"answer": <value>}: a string for text and select, true/false for confirm, an object for form.',
    );
  }
  const extra = Object.keys(body).find((k) => k !== 'answer');
  if (extra !== undefined) throw invalid(extra, `${extra} is not an answer field; send {"answer": <value>} only.`);
  return (body as { answer: unknown }).answer;
}

/** The answer in the callback page's form-encoded submit, as the question's format reads its page. */
export function answerFromForm(question: Question, entries: Entries): unknown {
  return formatOf(question.answer_format).fromPage(question, entries);
}

/** The posted entries as the form's values, for showing the form again after a refusal. */
export function formValues(entries: Entries): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    if (name.startsWith(RESERVED_PREFIX)) continue;
    const prior = values[name];
    values[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return values;
}

function inputOf(entries: Entries, name: string, kind: string): FieldInput {
  const values = entries.filter(([n]) => n === name).map(([, v]) => v);
  if (kind === 'checkboxes') return values;
  if (kind === 'checkbox') return values.includes('true');
  return values[0] ?? '';
}

/**
 * The sentences to show under the fields the server refused (each refusal's field and bare reason, as data; an
 * answer refusal lists every violation in `errors`): the same sentence the page's own checks would have shown (the
 * sender's `errorMessages` first, then the page's defaults), else the server's reason (forms/refusal.ts, which the
 * inbox shares). Refusals no field of the page holds are shown at the top, each naming its field.
 */
export function refusalOf(question: Question, error: AskgateError, entries: Entries): Refusal {
  const values = formValues(entries);
  const format = formatOf(question.answer_format);
  const fields = flattenFields(formFields(format.pageSchema(question)));
  const listed = error.extra['errors'];
  const each: Array<{ field: string | null; reason: string }> = Array.isArray(listed)
    ? (listed as AnswerViolation[])
    : [error.refusal];
  const errors: Record<string, string> = {};
  for (const { field: raw, reason } of each) {
    // A wrapped format's value sits in its `answer` field, which the server also calls the answer as a whole.
    const atRoot = raw === null || raw === '' || raw === ANSWER_ROOT;
    const path = format.wrapped && atRoot ? 'answer' : atRoot ? '' : raw;
    const field = fields.find((f) => f.name === path);
    if (field === undefined) {
      // Every violation the form cannot point at is said at the top, each once.
      const general = generalSentence({ field: raw ?? '', reason });
      const prior = errors[''];
      if (prior === undefined) errors[''] = general;
      else if (!prior.includes(general)) errors[''] = `${prior} ${general}`;
      continue;
    }
    errors[field.name] ??= refusalSentence(field.rule, inputOf(entries, field.name, field.rule.kind), reason);
  }
  return { values, errors };
}
