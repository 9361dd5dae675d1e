import type { ErrorRequestHandler } from 'express';
import { AskgateError, type ErrorCode } from '../core/errors.js';
import type { Logger } from '../observability/logger.js';

/** The one map from core error codes to HTTP statuses. */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_answer: 400,
  fixed_by_preset: 400,
  payload_too_large: 413,
  unauthorized: 401,
  verifier_refused: 401,
  forbidden: 403,
  callback_only: 403,
  not_an_approver: 403,
  not_found: 404,
  conflict: 409,
  lease_expired: 409,
  already_completed: 409,
  gone: 410,
  rate_limited: 429,
  verifier_unavailable: 500,
  not_implemented: 501,
  channel_delivery_failed: 502,
  provider_failed: 502,
  store_unavailable: 503,
  not_configured: 503,
  internal_error: 500,
};

interface BodyParserError {
  type?: string;
  status?: number;
}

/** The response an error becomes: status, JSON body, and headers beyond the content type. Unknown errors are logged. */
export function errorResponse(
  err: unknown,
  logger: Logger,
): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  let error: AskgateError;
  const parser = err as BodyParserError;
  if (err instanceof AskgateError) {
    error = err;
  } else if (parser?.type === 'entity.too.large') {
    error = new AskgateError('payload_too_large', 'the body is larger than 1 MiB; send a smaller one.');
  } else if (parser?.type === 'entity.parse.failed') {
    error = new AskgateError('invalid_json', 'the body is not valid JSON.', { field: 'body' });
  } else if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    error = new AskgateError('invalid_request', 'the body encoding is not supported; send UTF-8 JSON.', {
      field: 'body',
    });
  } else {
    logger.error(
      { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
      'unhandled error in a door',
    );
    // Not store_unavailable: that names a cause (and a 503 with Retry-After) the log line above does not show.
    error = new AskgateError('internal_error', 'askgate could not complete the request; the error is logged.');
    return { status: 500, body: error.toBody(), headers: {} };
  }
  return { status: STATUS_OF[error.code], body: error.toBody(), headers: errorHeaders(error) };
}

/**
 * How long a client should wait before retrying while the store does not answer: the Redis connections reconnect
 * at most a second apart, so two seconds lets a restarted Redis be reached again before the retry arrives.
 */
export const STORE_RETRY_AFTER_SECONDS = 2;

/** The headers an error carries beyond the content type: `Retry-After` on a 429, and on a 503 while the store is away. */
export function errorHeaders(error: AskgateError): Record<string, string> {
  const retryAfter = error.extra['retry_after'];
  if (error.code === 'rate_limited' && typeof retryAfter === 'number') return { 'Retry-After': String(retryAfter) };
  if (error.code === 'store_unavailable') return { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) };
  return {};
}

/** Turns whatever a door threw into the JSON error body every door answers with. Unknown errors are 500 and are logged. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const { status, body, headers } = errorResponse(err, logger);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  };
}
