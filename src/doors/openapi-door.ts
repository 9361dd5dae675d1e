import type { ErrorCode } from '../core/errors.js';
import type { JsonSchema, Scope } from '../core/types.js';
import { STATUS_OF } from './error-status.js';

/**
 * What one door of the OpenAPI document is made of, the small builders every door list uses, and how a door becomes
 * its operation (success replies, error codes grouped under their statuses, security, body). Kept apart so the door
 * lists (openapi-document.ts, openapi-run-doors.ts) hold doors only.
 */

export type Method = 'get' | 'post' | 'put' | 'delete';

/** One documented response: a status, what it means, and its JSON schema (or another media type). */
export interface Reply {
  description: string;
  schema?: JsonSchema;
  /** A media type other than JSON (the stream, the callback pages). */
  media?: Record<string, { schema: JsonSchema }>;
}

export interface Door {
  method: Method;
  path: string;
  /** The bearer scope the door needs; null for a public door. */
  scope: Scope | null;
  summary: string;
  description: string;
  tag: string;
  params?: JsonSchema[];
  body?: { schema: JsonSchema; required: boolean; formToo?: boolean };
  ok: Record<number, Reply>;
  /** The codes this door answers besides its success, each under its status from `STATUS_OF`. */
  errors: ErrorCode[];
  /** A door a browser uses too: its answers (success and refusal) may be an HTML page instead of JSON. */
  pages?: true;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const json = (description: string, name: string): Reply => ({ description, schema: ref(name) });

/** Refusals every authenticated door can answer: no or an unknown token, a missing scope, the store away, a bug. */
export const AUTHED: ErrorCode[] = ['unauthorized', 'forbidden', 'store_unavailable', 'internal_error'];
/** Refusals of every door that reads a JSON body: not JSON, not UTF-8 (a field names `body`), over 1 MiB. */
export const JSON_BODY: ErrorCode[] = ['invalid_json', 'invalid_request', 'payload_too_large'];

export const pathParam = (name: string, description: string, schema: JsonSchema = { type: 'string' }): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
export const queryParam = (name: string, description: string, schema: JsonSchema): JsonSchema => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

/** The error response of `codes` at one status: the `Error` body with `error` one of them. */
function errorReply(codes: ErrorCode[], pages: boolean): Record<string, unknown> {
  const schema = { allOf: [ref('Error'), { properties: { error: { enum: codes } } }] };
  const headers: Record<string, unknown> = {};
  if (codes.includes('rate_limited') || codes.includes('store_unavailable'))
    headers['Retry-After'] = {
      description: 'Seconds to wait: the flood window (429), or 2 while the store does not answer (503).',
      schema: { type: 'integer' },
    };
  return {
    description: codes.map((c) => `\`${c}\``).join(', '),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/json': { schema }, ...(pages ? HTML_PAGE : {}) },
  };
}

export function operation(door: Door): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const pages = door.pages === true;
  for (const [status, reply] of Object.entries(door.ok))
    responses[status] = {
      description: reply.description,
      ...(reply.schema === undefined && reply.media === undefined
        ? {}
        : { content: reply.media ?? { 'application/json': { schema: reply.schema }, ...(pages ? HTML_PAGE : {}) } }),
    };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(door.errors)) {
    const status = STATUS_OF[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
    responses[String(status)] = errorReply(codes, pages);
  const op: Record<string, unknown> = {
    operationId: operationId(door),
    tags: [door.tag],
    summary: door.summary,
    description: door.scope === null ? door.description : `${door.description} Scope: \`${door.scope}\`.`,
    security: door.scope === null ? [] : [{ bearer: [door.scope] }],
    responses,
  };
  if (door.params !== undefined) op['parameters'] = door.params;
  if (door.body !== undefined) {
    const content: Record<string, unknown> = { 'application/json': { schema: door.body.schema } };
    if (door.body.formToo === true) content['application/x-www-form-urlencoded'] = { schema: { type: 'object' } };
    op['requestBody'] = { required: door.body.required, content };
  }
  return op;
}

/** `get /api/interactions/{id}/answer` → `getApiInteractionsIdAnswer`: stable, and unique per door. */
function operationId(door: Door): string {
  const words = door.path
    .split('/')
    .filter((w) => w !== '' && w !== 'api')
    .flatMap((w) => w.replace(/[{}]/g, '').split(/[_.-]/));
  return door.method + words.map((w) => (w[0] ?? '').toUpperCase() + w.slice(1)).join('');
}
