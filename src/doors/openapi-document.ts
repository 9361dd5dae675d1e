import { LINK_BODY_SCHEMA } from '../../channels/web/link-token.js';
import { ANSWER_BODY_SCHEMA } from '../callback/answer-body.js';
import { presetBodySchema, PRESET_NAME } from '../confirmations/presets.js';
import { askBodySchema } from '../core/ask-body-schema.js';
import type { JsonSchema } from '../core/types.js';
import { reconcileBodySchema } from './confirmations.js';
import { AUTHED, type Door, JSON_BODY, json, operation, pathParam, queryParam } from './openapi-door.js';
import { runDoors } from './openapi-run-doors.js';
import { responseSchemas } from './openapi-schemas.js';

/**
 * The OpenAPI 3.1 document of askgate's `/api` doors, served at `GET /openapi.json`. Built here, in code, from the
 * schemas the doors' own rules are written against: the ask body from `ask-body-schema.ts` (whose limits and field
 * list `parseAskRequest` applies), the fan-out from `runs.ts`, the preset from `presets.ts`, reconcile from
 * `confirmations.ts`, the answer from `answer-body.ts`, the web chat link from its channel. Responses are the
 * closed objects of `openapi-schemas.ts`; each door lists the error codes it answers, under their statuses
 * (`error-status.ts`). test/api/openapi-conformance.test.ts drives every door and validates what it answers.
 * What a door is and how it becomes an operation is openapi-door.ts; the run and continuation doors are
 * openapi-run-doors.ts.
 */

const ID = pathParam('id', 'The interaction id.');
const PRESET = pathParam('name', 'The preset name.', { type: 'string', pattern: PRESET_NAME.source });
const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

function doors(): Door[] {
  const ask = askBodySchema();
  const askFields = ask['properties'] as Record<string, JsonSchema>;
  return [
    {
      method: 'post',
      path: '/api/interactions',
      scope: 'write',
      tag: 'interactions',
      summary: 'Ask a question',
      description:
        'Validates every field first (a refusal names the field and stores nothing), stores the question and ' +
        'delivers it. An async ask (and `to: "caller"`) parks its run: the response has `suspended: true`. ' +
        'Async parks, `remind` and `escalate` need the Redis store (409 on the in-memory store).',
      body: { schema: ask, required: true },
      ok: { 201: json('The record; `callback_url` only here.', 'AskResponse') },
      errors: [...AUTHED, ...JSON_BODY, 'conflict', 'channel_delivery_failed'],
    },
    {
      method: 'get',
      path: '/api/interactions',
      scope: 'read',
      tag: 'interactions',
      summary: 'List pending questions',
      description: 'Oldest first; only pending questions are listed (read a resolved one by its id).',
      params: [
        queryParam('status', 'Only "pending" (the default).', { type: 'string', enum: ['pending'] }),
        queryParam('limit', 'Page size, default 50.', { type: 'integer', minimum: 1, maximum: 200 }),
        queryParam('cursor', '`next_cursor` of the previous page.', { type: 'string' }),
        queryParam('group_id', 'Only this thread of related questions.', { type: 'string' }),
      ],
      ok: { 200: json('One page.', 'InteractionPage') },
      errors: [...AUTHED, 'invalid_request'],
    },
    {
      method: 'get',
      path: '/api/interactions/stream',
      scope: 'read',
      tag: 'interactions',
      summary: 'Follow events (Server-Sent Events)',
      description:
        'Tail only, no replay. Events `interaction.created`, `interaction.answered`, `interaction.expired`, ' +
        '`interaction.cancelled`, `interaction.delivery_failed`; each `data` is the record as JSON ' +
        '(`#/components/schemas/Interaction`) and each `id` its id. A token with the `admin` scope also gets the ' +
        'operator signals `confirmation.reconcile_unserved` (data `{provider, lookback_hours, selected, expired, at}`) ' +
        'and `confirmation.bridge_failed` (data a failed bridge job as `GET /api/confirmations/failed` lists it), ' +
        'without an `id`. The first line is the comment `: connected`; a comment every 15 s keeps proxies from ' +
        'closing the stream.',
      ok: { 200: { description: 'The event stream.', media: { 'text/event-stream': { schema: { type: 'string' } } } } },
      errors: AUTHED,
    },
    {
      method: 'get',
      path: '/api/interactions/{id}',
      scope: 'read',
      tag: 'interactions',
      summary: 'Read a question',
      description: 'The record, whatever its status (until it is pruned after its idle TTL).',
      params: [ID],
      ok: { 200: json('The record.', 'Interaction') },
      errors: [...AUTHED, 'not_found'],
    },
    {
      method: 'delete',
      path: '/api/interactions/{id}',
      scope: 'write',
      tag: 'interactions',
      summary: 'Cancel a pending question',
      description: 'Only the asker may cancel (403 otherwise); a question no longer pending is 409 with its `status`.',
      params: [ID],
      ok: { 200: json('Cancelled.', 'Cancelled') },
      errors: [...AUTHED, 'not_found', 'conflict'],
    },
    {
      method: 'get',
      path: '/api/interactions/{id}/result',
      scope: 'read',
      tag: 'interactions',
      summary: 'Wait for the result',
      description: 'Waits up to `wait` seconds for the question to leave pending (or become undeliverable).',
      params: [ID, queryParam('wait', 'Seconds to wait, default 0.', { type: 'integer', minimum: 0, maximum: 60 })],
      ok: { 200: json('The record, resolved or not.', 'Interaction') },
      errors: [...AUTHED, 'invalid_request', 'not_found'],
    },
    {
      method: 'get',
      path: '/api/interactions/{id}/events',
      scope: 'read',
      tag: 'interactions',
      summary: "Read a question's audit trail",
      description: 'Oldest first, each event hash-chained to the one before (docs/audit.md).',
      params: [ID],
      ok: { 200: json('The trail.', 'AuditEvents') },
      errors: [...AUTHED, 'not_found'],
    },
    {
      method: 'post',
      path: '/api/interactions/{id}/answer',
      scope: 'answer',
      tag: 'interactions',
      summary: 'Answer a question',
      description:
        'Exactly one answer wins. A verifier-bound question is answered through its callback only (403 ' +
        '`callback_only`); an expired or cancelled one is 410 `gone` with its `status`. The answer is recorded with ' +
        'surface `api`, or `inbox` / `cli` when the header `X-Askgate-Client` names that client (a label, no grant).',
      params: [ID],
      body: { schema: ANSWER_BODY_SCHEMA, required: true },
      ok: { 200: json('This answer won, was counted as a vote, or an earlier one had won.', 'AnswerVerdict') },
      errors: [...AUTHED, ...JSON_BODY, 'invalid_answer', 'callback_only', 'not_an_approver', 'not_found', 'gone'],
    },
    {
      method: 'get',
      path: '/api/interactions/callback/{ticket}',
      scope: null,
      tag: 'callback',
      summary: 'The callback page',
      description:
        'The page a person answers on (a form, or the confirm page of an external question). A verifier-bound ' +
        "ticket's page is one constant 404.",
      params: [pathParam('ticket', 'The ticket of the callback URL: `<secret>.<id>`.')],
      ok: { 200: { description: 'The page.', media: HTML_PAGE } },
      errors: ['not_found', 'rate_limited', 'store_unavailable', 'internal_error'],
      pages: true,
    },
    {
      method: 'post',
      path: '/api/interactions/callback/{ticket}',
      scope: null,
      tag: 'callback',
      summary: 'Answer through a callback ticket',
      description:
        'JSON from a machine: `{"answer": <value>}`, or for an external question the payload itself (an object ' +
        'whose only key is `answer` is unwrapped). A bound verifier runs before anything else is told. ' +
        'Form-encoded from the page: answered with a page (`text/html`) instead of JSON.',
      params: [pathParam('ticket', 'The ticket of the callback URL: `<secret>.<id>`.')],
      body: { schema: {}, required: true, formToo: true },
      ok: { 200: json('The verdict (a page for a form post).', 'AnswerVerdict') },
      errors: [
        ...JSON_BODY,
        'invalid_answer',
        'verifier_refused',
        'not_an_approver',
        'not_found',
        'rate_limited',
        'verifier_unavailable',
        'store_unavailable',
        'internal_error',
      ],
      pages: true,
    },
    ...runDoors(),
    {
      method: 'put',
      path: '/api/presets/{name}',
      scope: 'admin',
      tag: 'presets',
      summary: 'Write a preset',
      description: 'A new version every time.',
      params: [PRESET],
      body: { schema: presetBodySchema(askFields), required: true },
      ok: { 200: json('The version written.', 'PresetWritten') },
      errors: [...AUTHED, ...JSON_BODY],
    },
    {
      method: 'get',
      path: '/api/presets/{name}',
      scope: 'read',
      tag: 'presets',
      summary: 'Read a preset',
      description: 'The current body and every version.',
      params: [PRESET],
      ok: { 200: json('The preset.', 'Preset') },
      errors: [...AUTHED, 'invalid_request', 'not_found'],
    },
    {
      method: 'post',
      path: '/api/presets/{name}/ask',
      scope: 'write',
      tag: 'presets',
      summary: 'Ask through a preset',
      description:
        'The ask fields the preset leaves open; a field it fixes is 400 `fixed_by_preset`. A confirmation ' +
        "preset's record has `confirmation_url` and no `callback_url`.",
      params: [PRESET],
      body: { schema: { type: 'object', additionalProperties: false, properties: askFields }, required: false },
      ok: { 201: json('The record.', 'PresetAskResponse') },
      errors: [
        ...AUTHED,
        ...JSON_BODY,
        'fixed_by_preset',
        'not_found',
        'conflict',
        'channel_delivery_failed',
        'provider_failed',
        'not_configured',
      ],
    },
    {
      method: 'post',
      path: '/api/confirmations/reconcile',
      scope: 'admin',
      tag: 'confirmations',
      summary: 'Reconcile confirmations now',
      description: "One run over every configured provider's completed sessions.",
      body: { schema: reconcileBodySchema(), required: false },
      ok: { 200: json('What the run did.', 'ReconcileSummary') },
      errors: [...AUTHED, ...JSON_BODY, 'provider_failed', 'not_configured'],
    },
    {
      method: 'get',
      path: '/api/confirmations/failed',
      scope: 'admin',
      tag: 'confirmations',
      summary: 'List failed bridge jobs',
      description: 'Bridge jobs kept as failed; 503 on the in-memory store.',
      ok: { 200: json('The failed jobs.', 'FailedJobs') },
      errors: [...AUTHED, 'not_configured'],
    },
    {
      method: 'post',
      path: '/api/confirmations/failed/{job}/retry',
      scope: 'admin',
      tag: 'confirmations',
      summary: 'Retry a failed bridge job',
      description: 'Tries it again with a fresh ladder.',
      params: [pathParam('job', 'The failed job id.')],
      ok: { 200: json('Retrying.', 'Retrying') },
      errors: [...AUTHED, 'not_found', 'not_configured'],
    },
    {
      method: 'post',
      path: '/api/channels/web/links',
      scope: 'write',
      tag: 'web chat',
      summary: 'Mint a web chat link',
      description: 'A signed link that signs its holder in as `recipient` on the web chat (treat it like a password).',
      body: { schema: LINK_BODY_SCHEMA, required: true },
      ok: { 201: json('The link.', 'WebChatLink') },
      errors: [...AUTHED, ...JSON_BODY],
    },
  ];
}

/** The document; `version` is the gateway's (package.json). */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const door of doors()) {
    const item = paths[door.path] ?? {};
    item[door.method] = operation(door);
    paths[door.path] = item;
  }
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenapiJson',
      tags: ['meta'],
      summary: 'This document',
      description: 'Public: it describes the doors and holds no secret of this deployment.',
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document.',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'askgate',
      version,
      summary: 'Ask people questions from running programs: one API for the inbox, chat channels and callbacks.',
      description:
        'Every error body is `{"error": "<code>", "message": "<one sentence>", "field"?: "<path>"}`; each door ' +
        'lists its codes. Tokens come from `ASKGATE_TOKENS`, each with its scopes (`read`, `write`, `answer`, ' +
        '`admin`); the scope a door needs is named in its security requirement.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative to where the document is read from: the gateway that serves it (a viewer calls that one).
    servers: [{ url: '/', description: 'The gateway serving this document.' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token of ASKGATE_TOKENS (or the dev token printed at start). Scopes: read, write, answer, admin.',
        },
      },
      schemas: responseSchemas(),
    },
  };
}
