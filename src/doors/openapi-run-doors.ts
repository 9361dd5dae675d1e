import { continuationBodySchemas } from './continuations.js';
import { AUTHED, type Door, JSON_BODY, json, pathParam } from './openapi-door.js';
import { runsBodySchema } from './runs.js';

/**
 * The run and continuation doors of the OpenAPI document: a fan-out parked and read (`/api/runs`), and the handler
 * workers' claim, complete, fail and extend (`/api/continuations`). Their own list, as the review format's shapes are
 * in openapi-review.ts, so the document's main list stays the interactions, presets, confirmations and web chat.
 */

const RESUME_ID = pathParam('resume_id', 'The resume_id of the claimed continuation.');

/** The run and continuation doors, in the order the document lists them. */
export function runDoors(): Door[] {
  const continuations = continuationBodySchemas();
  return [
    {
      method: 'post',
      path: '/api/runs',
      scope: 'write',
      tag: 'runs',
      summary: 'Park a run on several asks (fan-out)',
      description:
        'Every ask is validated first (a refusal names `asks[i].<field>` and writes nothing), then all are ' +
        'written and the run parked in one step. Needs the Redis store (409 on the in-memory store).',
      body: { schema: runsBodySchema(), required: true },
      ok: { 201: json('The parked run and its asks.', 'RunParked') },
      errors: [...AUTHED, ...JSON_BODY, 'conflict', 'channel_delivery_failed'],
    },
    {
      method: 'get',
      path: '/api/runs/{run_id}',
      scope: 'read',
      tag: 'runs',
      summary: 'Read a run',
      description: 'To its identity and to the identity of its parent run; 404 to anyone else.',
      params: [pathParam('run_id', 'The run id.')],
      ok: { 200: json('The run.', 'Run') },
      errors: [...AUTHED, 'not_found'],
    },
    {
      method: 'post',
      path: '/api/continuations/claim',
      scope: 'write',
      tag: 'continuations',
      summary: 'Claim a continuation (handler workers)',
      description:
        "A long-poll for the next due continuation of the caller's identity for one of `handlers`, held under a " +
        'lease; 204 when none fell due within `wait`. Needs the Redis store (409 on the in-memory store).',
      body: { schema: continuations.claim, required: true },
      ok: {
        200: json('The continuation, under a lease.', 'ClaimedContinuation'),
        204: { description: 'Nothing fell due within `wait`; claim again.' },
      },
      errors: [...AUTHED, ...JSON_BODY, 'conflict'],
    },
    {
      method: 'post',
      path: '/api/continuations/{resume_id}/complete',
      scope: 'write',
      tag: 'continuations',
      summary: 'Complete a claimed continuation',
      description: 'Exactly once: a second complete is 409 `already_completed`, a lapsed lease 409 `lease_expired`.',
      params: [RESUME_ID],
      body: { schema: continuations.complete, required: true },
      ok: { 200: json('Completed.', 'ContinuationCompleted') },
      errors: [...AUTHED, ...JSON_BODY, 'not_found', 'conflict', 'lease_expired', 'already_completed'],
    },
    {
      method: 'post',
      path: '/api/continuations/{resume_id}/fail',
      scope: 'write',
      tag: 'continuations',
      summary: 'Fail a claimed continuation',
      description: 'Retried later (`retry_at`), or failed for good once its attempts are spent.',
      params: [RESUME_ID],
      body: { schema: continuations.fail, required: true },
      ok: { 200: json('Retrying, or failed.', 'ContinuationFailed') },
      errors: [...AUTHED, ...JSON_BODY, 'not_found', 'conflict', 'lease_expired', 'already_completed'],
    },
    {
      method: 'post',
      path: '/api/continuations/{resume_id}/extend',
      scope: 'write',
      tag: 'continuations',
      summary: 'Lengthen a lease',
      description: 'The lease now ends `lease_ms` from now.',
      params: [RESUME_ID],
      body: { schema: continuations.extend, required: true },
      ok: { 200: json('The new end of the lease.', 'LeaseExtended') },
      errors: [...AUTHED, ...JSON_BODY, 'not_found', 'conflict', 'lease_expired', 'already_completed'],
    },
  ];
}
