import { Router, json, type Request, type RequestHandler } from 'express';
import { AskgateError, invalid } from '../core/errors.js';
import type { AnswerVerdict, InteractionService } from '../core/interaction-service.js';
import type { Identity } from '../core/types.js';
import type { TokenAuthenticator } from './auth.js';

function identityOf(req: Request): Identity {
  // `authenticate` ran before every handler of this router; a missing identity is a wiring bug.
  if (req.identity === undefined) throw new AskgateError('unauthorized', 'this door needs a bearer token.');
  return req.identity;
}

function intParam(raw: unknown, field: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw invalid(field, `${field} must be a whole number from ${min} to ${max}.`);
  const n = Number(raw);
  if (n < min || n > max) throw invalid(field, `${field} must be a whole number from ${min} to ${max}.`);
  return n;
}

function stringParam(raw: unknown, field: string): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') throw invalid(field, `${field} must be given once.`);
  return raw;
}

/** The answer door's path; `answerDoor` serves it. */
export const ANSWER_PATH = '/api/interactions/:id/answer';

/**
 * `POST /api/interactions/{id}/answer`: the hottest door, mounted by the gateway ahead of every other router so a
 * request reaches it without being matched against the rest. Bearer auth (scope `answer`), then the JSON body.
 */
export function answerDoor(service: InteractionService, auth: TokenAuthenticator): RequestHandler[] {
  return [
    auth.require('answer'),
    json({ limit: '1mb', strict: false }),
    async (req, res) => {
      const status = await answerWith(service, req.params['id'] as string, req.body as unknown, identityOf(req));
      res.status(200).json({ status });
    },
  ];
}

/** The answer door's work once the caller is authenticated and the body parsed (shared with `answer-fast.ts`). */
export async function answerWith(service: InteractionService, id: string, payload: unknown, identity: Identity): Promise<AnswerVerdict> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || !('answer' in payload)) {
    throw invalid('answer', 'send {"answer": <value>}: a string for text and select, true/false for confirm, an object for form.');
  }
  const extra = Object.keys(payload).find((k) => k !== 'answer');
  if (extra !== undefined) throw invalid(extra, `${extra} is not an answer field; send {"answer": <value>} only.`);
  return service.offerAnswer({
    interactionId: id,
    answer: (payload as { answer: unknown }).answer,
    surface: 'inbox',
    answeredBy: identity.name,
  });
}

/**
 * The other authenticated interaction doors of the contract (the answer door is `answerDoor`, the stream door lives
 * in stream.ts).
 */
export function apiRouter(service: InteractionService, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = json({ limit: '1mb', strict: false });

  router.post('/api/interactions', auth.require('write'), body, async (req, res) => {
    const record = await service.ask(req.body, identityOf(req));
    res.status(201).json(record);
  });

  router.get('/api/interactions', auth.require('read'), async (req, res) => {
    const status = stringParam(req.query['status'], 'status') ?? 'pending';
    if (status !== 'pending') throw invalid('status', 'status must be "pending": the list holds pending questions; read a resolved one by its id.');
    const page = await service.listPending({
      limit: intParam(req.query['limit'], 'limit', 1, 200, 50),
      cursor: stringParam(req.query['cursor'], 'cursor'),
      groupId: stringParam(req.query['group_id'], 'group_id'),
    });
    res.json(page);
  });

  router.get('/api/interactions/:id', auth.require('read'), async (req, res) => {
    res.json(await service.get(req.params['id'] as string));
  });

  router.get('/api/interactions/:id/result', auth.require('read'), async (req, res) => {
    const wait = intParam(req.query['wait'], 'wait', 0, 60, 0);
    let closed = false;
    req.on('close', () => {
      closed = true;
    });
    const record = await service.waitForResult(req.params['id'] as string, wait);
    if (!closed) res.json(record);
  });

  router.delete('/api/interactions/:id', auth.require('write'), async (req, res) => {
    const record = await service.cancel(req.params['id'] as string, identityOf(req));
    res.status(200).json({ status: 'cancelled', interaction: record });
  });

  return router;
}
