import { Router, raw, type NextFunction, type Request, type Response } from 'express';
import { answerFromForm, answerFromJson, refusalOf, type Entries } from '../callback/answer-body.js';
import {
  alreadyAnsweredPage,
  answeredPage,
  CALLBACK_CSS,
  CALLBACK_CSS_PATH,
  errorPage,
  expiredPage,
  NOT_AVAILABLE_PAGE,
  PAGE_HEADERS,
  questionPage,
} from '../callback/pages.js';
import type { CallbackService } from '../core/callback-service.js';
import { AskgateError, invalid } from '../core/errors.js';
import type { Store } from '../core/store-port.js';
import { errorHeaders, STATUS_OF } from './error-status.js';
import { floodControl, type FloodBudget } from './flood.js';

/**
 * `GET|POST /api/interactions/callback/{ticket}`: the public door every tokenless answer comes through (channel
 * webviews, the form page, the confirm page of an external question, signed callbacks from outside systems).
 *
 * Order of a POST, which is what keeps the ticket-state oracle shut for a verifier-bound question:
 * flood control → find the ticket (unknown: 404) → run the bound verifier (refused: 401, cannot run: 500) →
 * only then the state (answered: already_answered; expired: 404) → parse → the one answer path, whose schema
 * check comes before the claim (mismatch: 400, ticket still live).
 */

export interface CallbackDoorDeps {
  callbacks: CallbackService;
  store: Store;
  rate: FloodBudget;
}

const PATH = '/api/interactions/callback/:ticket';

/** A browser submit from the page; everything else (JSON) is a machine and gets JSON back. */
function isFormPost(req: Request): boolean {
  return req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).send(html);
}

/** The one constant 404 page: unknown, pruned, and every GET of a verifier-bound ticket, byte for byte. */
function sendNotAvailable(res: Response): void {
  sendPage(res, 404, NOT_AVAILABLE_PAGE);
}

function bodyText(req: Request): string {
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0)
    throw invalid('body', 'the body is empty; send the answer as JSON or form-encoded.');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw invalid('body', 'the body is not UTF-8.');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AskgateError('invalid_json', 'the body is not valid JSON.', { field: 'body' });
  }
}

export function callbackRouter(deps: CallbackDoorDeps): Router {
  const router = Router();
  const { callbacks } = deps;
  const flood = floodControl(deps.store, deps.rate, 'callback');
  // Raw bytes, because signatures are over exactly what was sent; no inflation, so 1 MiB is 1 MiB on the wire.
  const rawBody = raw({ type: () => true, limit: '1mb', inflate: false });

  router.get(CALLBACK_CSS_PATH, (_req, res) => {
    res
      .set({
        'Content-Type': 'text/css; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'public, max-age=300',
      })
      .send(CALLBACK_CSS);
  });

  router.get(PATH, markHtml, flood, async (req, res) => {
    const state = await callbacks.lookup(req.params['ticket'] as string);
    // A bound ticket is for its verifier's sender only: GET shows it nothing, in any state.
    if (state.kind === 'unknown' || state.record.verifier_binding !== null) return sendNotAvailable(res);
    if (state.kind === 'answered') return sendPage(res, 200, alreadyAnsweredPage(state.record));
    if (state.kind === 'closed') return sendPage(res, 404, expiredPage(state.record));
    sendPage(res, 200, questionPage(state.record));
  });

  router.post(PATH, markFormPost, flood, rawBody, async (req, res) => {
    const state = await callbacks.lookup(req.params['ticket'] as string);
    // A bound ticket's sender is a machine: it gets JSON verdicts even if it posts form-encoded.
    const html = isFormPost(req) && (state.kind === 'unknown' || state.record.verifier_binding === null);
    res.locals['html'] = html;
    const request = { rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), headers: req.headers };
    if (!html) {
      // A machine: the callback service runs the door's order (verifier, state, body, answer) and words nothing.
      const verdict = await callbacks.submit(state, request, (record) => {
        if (!req.is('json') && !req.is('+json')) {
          throw new AskgateError(
            'invalid_request',
            'send the answer as application/json (or form-encoded from the callback page).',
            { field: 'content-type' },
          );
        }
        return answerFromJson(record, parseJson(bodyText(req)));
      });
      return res.status(200).json({ status: verdict });
    }
    if (state.kind === 'unknown') return sendNotAvailable(res);
    const record = state.record;
    await callbacks.verify(record, request);
    if (state.kind === 'answered') return sendPage(res, 200, alreadyAnsweredPage(record));
    if (state.kind === 'closed') return sendPage(res, 404, expiredPage(record));
    const entries: Entries = [...new URLSearchParams(bodyText(req)).entries()];
    try {
      const verdict = await callbacks.answer(record, answerFromForm(record, entries));
      sendPage(res, 200, verdict === 'answered' ? answeredPage(record) : alreadyAnsweredPage(record));
    } catch (err) {
      if (err instanceof AskgateError && err.code === 'invalid_answer')
        return sendPage(res, 400, questionPage(record, refusalOf(record, err, entries)));
      if (err instanceof AskgateError && err.code === 'not_found')
        return sendPage(res, 404, expiredPage({ ...record, status: 'expired' }));
      throw err;
    }
  });

  // A person on the page sees a page, not JSON, when the door refuses (too many requests, a failure).
  router.use(PATH, (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.locals['html'] !== true || !(err instanceof AskgateError)) return next(err);
    res.set(errorHeaders(err));
    sendPage(res, STATUS_OF[err.code], errorPage(err.message));
  });
  return router;
}

function markHtml(_req: Request, res: Response, next: NextFunction): void {
  res.locals['html'] = true;
  next();
}

/** A refusal before the ticket is read (flood control) is shown as a page to a browser's form submit. */
function markFormPost(req: Request, res: Response, next: NextFunction): void {
  res.locals['html'] = isFormPost(req);
  next();
}
