import type { InteractionRecord } from './wire/interactions.js';

/**
 * The SDK's errors. Two kinds are kept apart, as every good platform client does: the gateway answered and
 * refused (`AskgateHttpError`), or the gateway could not be reached at all (`AskgateNetworkError`). The two ask
 * outcomes that are not answers (`AskTimeoutError`, `AskCancelledError`) are errors too, so a plain `await ask()`
 * only ever yields an answer. None of them ever carries the bearer token, in its message or in its fields.
 */

/** The base of every error the SDK throws; `catch (e) { if (e instanceof AskgateSdkError) ... }` catches them all. */
export class AskgateSdkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The gateway answered with a non-2xx status; `code`, `message` and `field` come from its JSON error body. */
export class AskgateHttpError extends AskgateSdkError {
  /** The HTTP status, e.g. `400`. */
  readonly status: number;
  /** The stable error code of the body (`invalid_request`, `invalid_answer`, `not_found`, ...), or `http_<status>` when the body was not JSON. */
  readonly code: string;
  /** The offending field, when the gateway named one (e.g. `choices` or, for an answer, the schema path). */
  readonly field: string | undefined;
  /** The request that was refused, e.g. `POST /api/interactions` (path only; never the token). */
  readonly request: string;
  /** Seconds to wait before retrying, from `Retry-After` (429); undefined when absent. */
  readonly retryAfter: number | undefined;
  /** The whole parsed error body, for any extra members; null when the body was not JSON. */
  readonly body: Record<string, unknown> | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    field: string | undefined;
    request: string;
    retryAfter: number | undefined;
    body: Record<string, unknown> | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.request = init.request;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }
}

/** The request never got an HTTP answer: refused connection, DNS failure, reset mid-body. `cause` holds the underlying error. */
export class AskgateNetworkError extends AskgateSdkError {
  /** The request that failed, e.g. `GET /api/interactions/abc` (path only). */
  readonly request: string;

  constructor(request: string, baseUrl: string, cause: unknown) {
    const reason = cause instanceof Error ? describeCause(cause) : String(cause);
    super(
      `${request} could not reach the gateway at ${baseUrl}: ${reason}; check that askgate is running there (ASKGATE_URL).`,
      { cause },
    );
    this.request = request;
  }
}

/** Node's fetch reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeCause(error: Error): string {
  const inner = error.cause;
  if (inner instanceof Error && inner.message !== '') return inner.message;
  return error.message;
}

/** A sync ask reached its deadline with no answer; the interaction is (or is about to be) `expired`. */
export class AskTimeoutError extends AskgateSdkError {
  /** The id of the interaction that went unanswered. */
  readonly interactionId: string;
  /** Its deadline, RFC 3339. */
  readonly deadlineAt: string;
  /** The last record the SDK read (status `expired`, or `pending` when the gateway had not yet swept it). */
  readonly record: InteractionRecord;

  constructor(record: InteractionRecord) {
    super(`interaction ${record.id} got no answer before its deadline ${record.deadline_at}.`);
    this.interactionId = record.id;
    this.deadlineAt = record.deadline_at;
    this.record = record;
  }
}

/**
 * Every chat delivery of the question failed after it was sent (a failed receipt, WhatsApp's 131047 outside the
 * 24-hour window, an SMS STOP): nobody saw it, so waiting out the deadline would only waste the caller's time. The
 * question stays pending on the gateway (an answer in the inbox still wins); `code` is the platform's error code.
 */
export class AskUndeliverableError extends AskgateSdkError {
  readonly interactionId: string;
  /** The platform's error code of the (first) failed delivery, e.g. `131047` or `21610`. */
  readonly code: string;
  /** The record as the gateway returned it, with its `deliveries`. */
  readonly record: InteractionRecord;

  constructor(record: InteractionRecord) {
    const failed = (record.deliveries ?? []).find((d) => d.status === 'failed');
    const code = failed?.error?.code ?? 'unknown';
    const where = failed === undefined ? 'its channel' : `${failed.channel} (${failed.recipient ?? 'no recipient'})`;
    super(
      `interaction ${record.id} could not be delivered on ${where}: ${code} ${failed?.error?.message ?? ''}`.trim(),
    );
    this.interactionId = record.id;
    this.code = code;
    this.record = record;
  }
}

/** A sync ask was cancelled (`DELETE /api/interactions/{id}`) while its caller waited. */
export class AskCancelledError extends AskgateSdkError {
  /** The id of the cancelled interaction. */
  readonly interactionId: string;
  /** The cancelled record. */
  readonly record: InteractionRecord;

  constructor(record: InteractionRecord) {
    super(`interaction ${record.id} was cancelled before anyone answered.`);
    this.interactionId = record.id;
    this.record = record;
  }
}
