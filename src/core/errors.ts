/**
 * Core errors carry a stable `code`; the HTTP doors map codes to statuses in one place (`doors/error-status.ts`).
 * Messages are one sentence that names the field and, where there is one, the fix.
 */

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'payload_too_large'
  | 'invalid_answer'
  | 'unauthorized'
  | 'forbidden'
  | 'callback_only'
  | 'not_an_approver'
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'channel_delivery_failed'
  | 'verifier_refused'
  | 'verifier_unavailable'
  | 'rate_limited'
  | 'store_unavailable'
  | 'not_implemented'
  | 'fixed_by_preset'
  | 'provider_failed'
  | 'not_configured'
  /** A handler continuation's lease lapsed, or is not the one holding it now (docs/doors.md, "Continuations"). */
  | 'lease_expired'
  /** A handler continuation completed already; a second completion changes nothing. */
  | 'already_completed'
  /** Something askgate did not expect went wrong (it is logged); not the store, not the caller. */
  | 'internal_error';

/** A refusal as data: its code, the field it is about (a JSON path; `answer` for the whole answer) and the reason. */
export interface Refusal {
  code: ErrorCode;
  field: string | null;
  reason: string;
}

export class AskgateError extends Error {
  readonly code: ErrorCode;
  /** The offending field, when the error is about one. */
  readonly field: string | undefined;
  /**
   * The bare reason, when the error is about one field (e.g. `is required`): the edge that shows the refusal next
   * to that field words it from `field` and `reason`, never by taking the message apart.
   */
  readonly reason: string | undefined;
  /** Extra members of the JSON error body. */
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; reason?: string; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AskgateError';
    this.code = code;
    this.field = options.field;
    this.reason = options.reason;
    this.extra = options.extra ?? {};
  }

  /** The refusal as data, for an edge that words it itself. */
  get refusal(): Refusal {
    return { code: this.code, field: this.field ?? null, reason: this.reason ?? this.message };
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code, message: this.message, ...this.extra };
    if (this.field !== undefined) body['field'] = this.field;
    return body;
  }
}

/** A request field is missing or wrong; `field` names it with a JSON path such as `media[2].url`. */
export function invalid(field: string, message: string): AskgateError {
  return new AskgateError('invalid_request', message, { field });
}

/** The field an answer refusal names: the path inside the answer, or `answer` for the answer as a whole. */
export const ANSWER_ROOT = 'answer';

/** One thing wrong with an answer: its field (as `invalidAnswer` names it) and the bare reason. */
export interface AnswerViolation {
  field: string;
  reason: string;
}

/**
 * An answer that does not match the question's format or schema: `field` is the path inside the answer (`amount`,
 * `items[2]`), or `answer` when the answer as a whole is wrong (the wrong type, missing); `reason` the bare reason;
 * the message is the sentence the HTTP body carries. The body also lists it in `errors`.
 */
export function invalidAnswer(path: string, reason: string): AskgateError {
  return invalidAnswers([{ path, reason }]);
}

/**
 * Every violation of one answer in one refusal: `field` and `reason` are the first's (what a client that reads one
 * field shows), the message names each (`... at amount: must be >= 1; at name: is required`), and the body's
 * `errors` lists them all as `{field, reason}`.
 */
export function invalidAnswers(found: ReadonlyArray<{ path: string; reason: string }>): AskgateError {
  const errors: AnswerViolation[] = found.map(({ path, reason }) => ({
    field: path === '' ? ANSWER_ROOT : path,
    reason,
  }));
  const first = errors[0] ?? { field: ANSWER_ROOT, reason: 'does not match' };
  const each = errors.map((e) => `at ${e.field}: ${e.reason}`).join('; ');
  return new AskgateError('invalid_answer', `answer does not match schema ${each}`, {
    field: first.field,
    reason: first.reason,
    extra: { errors: errors.length > 0 ? errors : [first] },
  });
}
