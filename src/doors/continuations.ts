import { type Request, type Response, Router } from 'express';
import { AskgateError } from '../core/errors.js';
import type { HandlerClaims } from '../runs/handler-claims.js';
import { identityOf, type TokenAuthenticator } from './auth.js';
import { continuationDoors, type DoorReply } from './continuation-bodies.js';
import { jsonBody } from './json-body.js';

export { continuationBodySchemas } from './continuation-bodies.js';

/**
 * The continuation doors (docs/doors.md, "Continuations"): how a handler worker (the SDK's `startWorker`, or any
 * HTTP client) takes the continuations of runs parked with `{"resume": {"handler": "<name>"}}` and of routes whose
 * target is a handler, and reports their end. A token sees only its own identity's continuations. Every door needs
 * the scope `write`.
 *
 * - `POST /api/continuations/claim` `{"handlers", "wait"?, "lease_ms"?}` → 200 the next due continuation under a
 *   lease, or 204 when none fell due within `wait` seconds. The claim ends when the asker disconnects.
 * - `POST /api/continuations/{resume_id}/complete` `{"lease_id", "output"?, "claim"?}` → 200 `{"status":
 *   "completed"}`, with `claim` (a claim's body) also `"next"`: the next continuation, or null.
 * - `POST /api/continuations/{resume_id}/fail` `{"lease_id", "error", "retry_base_ms"?}` → 200 `{"status":
 *   "retrying", "retry_at"}` or `{"status": "failed"}`.
 * - `POST /api/continuations/{resume_id}/extend` `{"lease_id", "lease_ms"}` → 200 `{"lease_expires_at"}`.
 *
 * A lease that lapsed is `409 lease_expired`; a continuation that completed already is `409 already_completed`. On
 * the in-memory store (no runs park there) every door is `409 conflict` naming REDIS_URL.
 */
export function continuationsRouter(claims: HandlerClaims | null, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = jsonBody('1mb');
  const need = (): HandlerClaims => {
    if (claims === null)
      throw new AskgateError(
        'conflict',
        'handler workers take continuations of parked runs, and the in-memory store parks none; set REDIS_URL.',
      );
    return claims;
  };

  const send = (res: Response, reply: DoorReply): void => {
    if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  };
  const resumeIdOf = (req: Request): string => req.params['id'] as string;

  router.post('/api/continuations/claim', auth.require('write'), body, async (req, res) => {
    const aborted = abortedWith(req, res);
    try {
      const reply = await continuationDoors.claim(need(), identityOf(req), req.body, aborted.signal);
      if (!res.headersSent && !res.destroyed) send(res, reply);
    } finally {
      aborted.done();
    }
  });

  router.post('/api/continuations/:id/complete', auth.require('write'), body, async (req, res) => {
    const aborted = abortedWith(req, res);
    try {
      const reply = await continuationDoors.complete(
        need(),
        identityOf(req),
        resumeIdOf(req),
        req.body,
        aborted.signal,
      );
      if (!res.headersSent && !res.destroyed) send(res, reply);
    } finally {
      aborted.done();
    }
  });

  router.post('/api/continuations/:id/fail', auth.require('write'), body, async (req, res) => {
    send(res, await continuationDoors.fail(need(), identityOf(req), resumeIdOf(req), req.body));
  });

  router.post('/api/continuations/:id/extend', auth.require('write'), body, async (req, res) => {
    send(res, await continuationDoors.extend(need(), identityOf(req), resumeIdOf(req), req.body));
  });

  return router;
}

/** An AbortSignal that fires when the asker goes away before the response is written. */
function abortedWith(req: Request, res: Response): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableEnded) controller.abort(new Error('the claimer went away'));
  };
  res.on('close', onClose);
  if (req.destroyed) controller.abort(new Error('the claimer went away'));
  return { signal: controller.signal, done: () => res.off('close', onClose) };
}
