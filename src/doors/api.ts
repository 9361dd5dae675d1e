import { jsonBody } from './json-body.js';
import { Router, type RequestHandler } from 'express';
import { unwrapAnswer } from '../callback/answer-body.js';
import { invalid } from '../core/errors.js';
import type { AnswerVerdict, InteractionService } from '../core/interaction-service.js';
import type { Identity } from '../core/types.js';
import { identityOf, type TokenAuthenticator } from './auth.js';

function intParam(raw: unknown, field: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw))
    throw invalid(field, `${field} must be a whole number from ${min} to ${max}.`);
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
    jsonBody('1mb'),
    async (req, res) => {
      const surface = answerSurfaceOf(req.headers[CLIENT_HEADER]);
      const status = await answerWith(
        service,
        req.params['id'] as string,
        req.body as unknown,
        identityOf(req),
        surface,
      );
      res.status(200).json({ status });
    },
  ];
}

/**
 * The header askgate's own clients of the answer door name themselves with: the inbox page sends `inbox`, the CLI
 * `cli`. It labels where the answer came from in the record and the audit trail; who answered is the token's
 * identity whatever it says, so it grants nothing.
 */
export const CLIENT_HEADER = 'x-askgate-client';
const NAMED_CLIENTS: ReadonlySet<string> = new Set(['inbox', 'cli']);

/** The surface an answer door request is recorded as: a named client's (`inbox`, `cli`), else `api`. */
export function answerSurfaceOf(header: string | string[] | undefined): string {
  const named = typeof header === 'string' ? header.trim().toLowerCase() : '';
  return NAMED_CLIENTS.has(named) ? named : 'api';
}

/** The answer door's work once the caller is authenticated and the body parsed (shared with `answer-fast.ts`). */
export async function answerWith(
  service: InteractionService,
  id: string,
  payload: unknown,
  identity: Identity,
  surface: string,
): Promise<AnswerVerdict> {
  return service.offerAnswer({
    interactionId: id,
    answer: unwrapAnswer(payload),
    surface,
    answeredBy: identity.name,
  });
}

/**
 * The other authenticated interaction doors (docs/doors.md) (the answer door is `answerDoor`, the stream door lives
 * in stream.ts).
 */
export function apiRouter(service: InteractionService, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = jsonBody('1mb');

  router.post('/api/interactions', auth.require('write'), body, async (req, res) => {
    const record = await service.ask(req.body, identityOf(req));
    res.status(201).json(record);
  });

  router.get('/api/interactions', auth.require('read'), async (req, res) => {
    const status = stringParam(req.query['status'], 'status') ?? 'pending';
    if (status !== 'pending')
      throw invalid(
        'status',
        'status must be "pending": the list holds pending questions; read a resolved one by its id.',
      );
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

  router.get('/api/interactions/:id/events', auth.require('read'), async (req, res) => {
    res.json(await service.events(req.params['id'] as string));
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
