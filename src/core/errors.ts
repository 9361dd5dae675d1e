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
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'unknown_channel'
  | 'channel_delivery_failed'
  | 'verifier_refused'
  | 'verifier_unavailable'
  | 'rate_limited'
  | 'timeout'
  | 'store_unavailable'
  | 'not_implemented'
  | 'fixed_by_preset'
  | 'provider_failed'
  | 'not_configured';

export class AskgateError extends Error {
  readonly code: ErrorCode;
  /** The offending field, when the error is about one. */
  readonly field: string | undefined;
  /** Extra members of the JSON error body. */
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AskgateError';
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
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

/** An answer that does not match the question's format or schema. */
export function invalidAnswer(path: string, reason: string): AskgateError {
  const at = path === '' ? '(root)' : path;
  return new AskgateError('invalid_answer', `answer does not match schema at ${at}: ${reason}`, { field: at });
}
