/**
 * The sentence a form shows under a field the server refused, shared by the callback page (rendered on the server)
 * and the inbox (in the browser), so one refusal reads the same on both: the sentence the page's own checks would
 * have shown, else the sender's `errorMessages`, then the page's defaults, else the server's bare reason.
 *
 * Pure TypeScript: no DOM, no Node.
 */
import { checkField, type FieldInput } from './check.js';
import type { FieldRule } from './fields.js';
import { MESSAGES } from './messages.js';

/** One violation as the answer door lists it in its `errors`: the path inside the answer and the bare reason. */
export interface FieldViolation {
  field: string;
  reason: string;
}

/** The sentence under a refused field, given the field's rule, what it holds and the server's bare reason. */
export function refusalSentence(rule: FieldRule, input: FieldInput, reason: string): string {
  return (
    checkField(rule, input) ??
    (reason === 'is required' ? (rule.errorRequired ?? MESSAGES.required) : (rule.errorInvalid ?? sentence(reason)))
  );
}

/** A bare reason (`must be >= 1`) as a sentence (`Must be >= 1.`). */
export function sentence(reason: string): string {
  const text = reason.charAt(0).toUpperCase() + reason.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The answer door's name for the answer as a whole (the wrong type, missing), which no field of a form holds. */
export const ANSWER_AS_A_WHOLE = 'answer';

/**
 * The sentence at the top of the form for a violation no shown field holds: the bare reason when it is about the
 * answer as a whole, else the reason with the field's path in front (`Address.zip must match pattern "^\d{5}$".`),
 * so the person learns what the server refused even when the form cannot point at it.
 */
export function generalSentence(violation: FieldViolation): string {
  const { field, reason } = violation;
  return field === '' || field === ANSWER_AS_A_WHOLE ? sentence(reason) : sentence(`${field} ${reason}`);
}
