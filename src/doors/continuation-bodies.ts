import { AskgateError, invalid } from '../core/errors.js';
import type { Identity, JsonSchema } from '../core/types.js';
import {
  type ClaimedContinuation,
  HANDLER_NAME,
  type HandlerClaims,
  type LeaseRefusal,
  MAX_CLAIM_HANDLERS,
} from '../runs/handler-claims.js';

/** `wait` of a claim, seconds: the longest a claim is held open, and its default. */
const MAX_WAIT_SECONDS = 60;
const DEFAULT_WAIT_SECONDS = 30;
/** `lease_ms` of a claim or extend: 1 s .. 10 min. */
const MIN_LEASE_MS = 1000;
const MAX_LEASE_MS = 600_000;
/** `retry_base_ms` of a fail: 10 ms .. 1 h. */
const MIN_RETRY_BASE_MS = 10;
const MAX_RETRY_BASE_MS = 3_600_000;
/** The longest `error` a fail keeps. */
const MAX_ERROR_LENGTH = 2000;

/** The continuation doors' bodies as JSON Schema, from the limits the parsers below apply (openapi-run-doors.ts). */
export function continuationBodySchemas(): Record<'claim' | 'complete' | 'fail' | 'extend', JsonSchema> {
  const leaseId = { type: 'string', minLength: 1, maxLength: 200, description: 'The lease_id the claim returned.' };
  const leaseMs = { type: 'integer', minimum: MIN_LEASE_MS, maximum: MAX_LEASE_MS };
  const closed = (required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
    type: 'object',
    additionalProperties: false,
    required,
    properties,
  });
  const claim = closed(['handlers'], {
    handlers: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_CLAIM_HANDLERS,
      items: { type: 'string', pattern: HANDLER_NAME.source },
      description: 'The handler names this worker runs (as in run.resume.handler).',
    },
    wait: { type: 'number', minimum: 1, maximum: MAX_WAIT_SECONDS, description: `Default ${DEFAULT_WAIT_SECONDS}.` },
    lease_ms: { ...leaseMs, description: 'Default ASKGATE_RESUME_LOCK_MS.' },
  });
  return {
    claim,
    complete: closed(['lease_id'], {
      lease_id: leaseId,
      output: { description: "Any JSON: the run's output." },
      claim: {
        ...claim,
        description:
          'Claim the next continuation in the same request, once this one is recorded: the response carries it ' +
          'as `next` (null when none fell due within `wait`).',
      },
    }),
    fail: closed(['lease_id', 'error'], {
      lease_id: leaseId,
      error: {
        type: 'string',
        minLength: 1,
        description: `Why it failed; the first ${MAX_ERROR_LENGTH} characters are kept.`,
      },
      retry_base_ms: { type: 'integer', minimum: MIN_RETRY_BASE_MS, maximum: MAX_RETRY_BASE_MS },
    }),
    extend: closed(['lease_id', 'lease_ms'], { lease_id: leaseId, lease_ms: leaseMs }),
  };
}

/** A door's answer: its status and JSON body (none for 204). */
export interface DoorReply {
  status: number;
  body?: unknown;
}

/**
 * What the continuation doors do, apart from how a request reaches them: the express routes (continuations.ts) and
 * the same doors served ahead of express (continuations-fast.ts) both call these, so the two cannot drift.
 */
export const continuationDoors = {
  async claim(port: HandlerClaims, identity: Identity, payload: unknown, signal: AbortSignal): Promise<DoorReply> {
    const parsed = parseClaim(payload);
    const claimed = await port.claim({ identity: identity.name, ...parsed, signal });
    return claimed === null ? { status: 204 } : { status: 200, body: claimBody(claimed) };
  },

  /** With `claim`, the next continuation is claimed once this one is recorded (`signal`: the asker went away). */
  async complete(
    port: HandlerClaims,
    identity: Identity,
    resumeId: string,
    payload: unknown,
    signal: AbortSignal,
  ): Promise<DoorReply> {
    const b = objectBody(payload, ['lease_id', 'output', 'claim']);
    const leaseId = leaseIdOf(b);
    // Checked before anything is recorded: a bad claim refuses the whole request and changes nothing.
    const next = b['claim'] === undefined ? null : parseClaim(b['claim'], 'claim.');
    const result = await port.complete(identity.name, resumeId, leaseId, b['output'] ?? null);
    if (!result.ok) throw refusalError(result.refusal, resumeId);
    if (next === null) return { status: 200, body: { status: 'completed' } };
    const claimed = await port.claim({ identity: identity.name, ...next, signal });
    return { status: 200, body: { status: 'completed', next: claimed === null ? null : claimBody(claimed) } };
  },

  async fail(port: HandlerClaims, identity: Identity, resumeId: string, payload: unknown): Promise<DoorReply> {
    const b = objectBody(payload, ['lease_id', 'error', 'retry_base_ms']);
    const leaseId = leaseIdOf(b);
    const error = b['error'];
    if (typeof error !== 'string' || error.length === 0)
      throw invalid('error', 'error is required: a non-empty string saying why the handler failed.');
    const retryBase =
      b['retry_base_ms'] === undefined
        ? undefined
        : wholeNumber(b['retry_base_ms'], 'retry_base_ms', MIN_RETRY_BASE_MS, MAX_RETRY_BASE_MS);
    const result = await port.fail(identity.name, resumeId, leaseId, error.slice(0, MAX_ERROR_LENGTH), retryBase);
    if (!result.ok) throw refusalError(result.refusal, resumeId);
    const outcome = result.value;
    return {
      status: 200,
      body:
        outcome.status === 'failed'
          ? { status: 'failed' }
          : { status: 'retrying', retry_at: new Date(outcome.retryAt).toISOString() },
    };
  },

  async extend(port: HandlerClaims, identity: Identity, resumeId: string, payload: unknown): Promise<DoorReply> {
    const b = objectBody(payload, ['lease_id', 'lease_ms']);
    const leaseId = leaseIdOf(b);
    const leaseMs = wholeNumber(b['lease_ms'], 'lease_ms', MIN_LEASE_MS, MAX_LEASE_MS);
    const result = await port.extend(identity.name, resumeId, leaseId, leaseMs);
    if (!result.ok) throw refusalError(result.refusal, resumeId);
    return { status: 200, body: { lease_expires_at: new Date(result.value).toISOString() } };
  },
};

/** The 200 body of a claim: the envelope, and the continuation as the handler receives it (with `attempt`). */
function claimBody(claimed: ClaimedContinuation): Record<string, unknown> {
  return {
    resume_id: claimed.resumeId,
    handler: claimed.handler,
    lease_id: claimed.leaseId,
    lease_expires_at: new Date(claimed.leaseExpiresAt).toISOString(),
    attempt: claimed.attempt,
    continuation: { ...claimed.body, attempt: claimed.attempt },
  };
}

/** A JSON object holding only `fields`; `at` (`claim.`) names a nested one in errors. */
function objectBody(raw: unknown, fields: readonly string[], at = ''): Record<string, unknown> {
  const list = fields.map((f) => `"${f}"`).join(', ');
  const self = at === '' ? 'body' : at.slice(0, -1);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid(self, `${at === '' ? 'the body' : self} must be a JSON object with ${list}.`);
  const b = raw as Record<string, unknown>;
  const extra = Object.keys(b).find((k) => !fields.includes(k));
  if (extra !== undefined)
    throw invalid(`${at}${extra}`, `${at}${extra} is not a field of ${at === '' ? 'this door' : self}; send ${list}.`);
  return b;
}

/** A claim's fields; `at` prefixes the field names an error gives (`claim.` inside a complete). */
function parseClaim(raw: unknown, at = ''): { handlers: string[]; waitMs: number; leaseMs: number | null } {
  const b = objectBody(raw, ['handlers', 'wait', 'lease_ms'], at);
  const handlers = b['handlers'];
  if (!Array.isArray(handlers) || handlers.length < 1 || handlers.length > MAX_CLAIM_HANDLERS)
    throw invalid(`${at}handlers`, `${at}handlers must be a list of 1..${MAX_CLAIM_HANDLERS} handler names.`);
  handlers.forEach((name: unknown, i) => {
    if (typeof name !== 'string' || !HANDLER_NAME.test(name))
      throw invalid(
        `${at}handlers[${i}]`,
        `${at}handlers[${i}] must be 1..100 letters, digits, "_", "." or "-" (as in run.resume.handler).`,
      );
  });
  const wait = b['wait'] === undefined ? DEFAULT_WAIT_SECONDS : b['wait'];
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 1 || wait > MAX_WAIT_SECONDS)
    throw invalid(`${at}wait`, `${at}wait must be a number of seconds from 1 to ${MAX_WAIT_SECONDS}.`);
  const leaseMs =
    b['lease_ms'] === undefined ? null : wholeNumber(b['lease_ms'], `${at}lease_ms`, MIN_LEASE_MS, MAX_LEASE_MS);
  return { handlers: [...new Set(handlers as string[])], waitMs: Math.round(wait * 1000), leaseMs };
}

function wholeNumber(raw: unknown, field: string, min: number, max: number): number {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max)
    throw invalid(field, `${field} must be a whole number from ${min} to ${max}.`);
  return raw;
}

function leaseIdOf(b: Record<string, unknown>): string {
  const leaseId = b['lease_id'];
  if (typeof leaseId !== 'string' || leaseId.length === 0 || leaseId.length > 200)
    throw invalid('lease_id', 'lease_id is required: the lease_id the claim returned.');
  return leaseId;
}

function refusalError(refusal: LeaseRefusal, resumeId: string): AskgateError {
  switch (refusal) {
    case 'not_found':
      return new AskgateError('not_found', `no continuation ${resumeId} of your runs is held under that lease.`);
    case 'lease_expired':
      return new AskgateError(
        'lease_expired',
        `the lease on ${resumeId} lapsed or is not this one: the continuation is offered to another claim; ` +
          'extend a lease before it lapses.',
      );
    case 'already_completed':
      return new AskgateError('already_completed', `${resumeId} completed already; nothing changed.`);
  }
}
