import { Router, raw, type NextFunction, type Request, type Response } from 'express';
import {
  ACTION_LINK_HEADERS,
  answeredOutcomePage,
  closedPage,
  confirmChoicePage,
  EXPIRED_LINK_PAGE,
  INVALID_LINK_PAGE,
  LINK_NOT_AVAILABLE_PAGE,
  linkErrorPage,
  NOT_FROM_THE_PAGE,
  notAnApproverPage,
  sentPage,
  votedPage,
} from '../callback/action-link-pages.js';
import { type ActionLinkClaim, type ActionLinks, ACTION_LINK_PATH_PREFIX } from '../core/action-links.js';
import type { DispatchOutcome, InboundAction } from '../core/dispatcher.js';
import { AskgateError } from '../core/errors.js';
import type { Store } from '../core/store-port.js';
import type { StoredInteraction } from '../core/types.js';
import { errorHeaders, STATUS_OF } from './error-status.js';
import { floodControl, type FloodBudget } from './flood.js';

/**
 * `GET|POST /a/{token}`: the signed action links channels put in messages (src/core/action-links.ts).
 * - GET never answers (mail scanners and link previews follow GETs): a pending question shows what the click will do
 *   and one button; a resolved one shows how it ended. A bad token is 400, an expired one 410, a question that no
 *   longer exists 404 — each a page.
 * - POST, from that button only (same-origin: `Sec-Fetch-Site`, else `Origin`, and the token repeated in the form),
 *   dispatches the link's one answer as a tap would be (the core's dispatcher: surface and status checks, then the
 *   one answer path), as `<channel>:<recipient>` on the channel's surface.
 * Flood control as on the callback door. The token is never logged (observability/logger.ts masks the path).
 */

export interface ActionLinkDoorDeps {
  /** Null when the gateway makes no links (ASKGATE_LINK_SECRET unset): every link is "not available". */
  links: ActionLinks | null;
  store: Store;
  /**
   * The core's inbound dispatcher (the one channels' taps go through): locate, surface check, status check, then
   * the one answer path.
   */
  dispatch(action: InboundAction): Promise<DispatchOutcome>;
  rate: FloodBudget;
  /** INTERACTIONS_PUBLIC_BASE_URL: the origin a browser's POST must come from when it names one. */
  publicBaseUrl: string | null;
}

const PATH = `${ACTION_LINK_PATH_PREFIX}:token`;

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(ACTION_LINK_HEADERS).send(html);
}

/** The pending question a token can still act on, or the page that says why it cannot. */
type Opened =
  | { kind: 'open'; claim: ActionLinkClaim; record: StoredInteraction }
  | { kind: 'refused'; status: number; html: string };

async function open(deps: ActionLinkDoorDeps, token: string): Promise<Opened> {
  if (deps.links === null) return { kind: 'refused', status: 404, html: LINK_NOT_AVAILABLE_PAGE };
  const reading = deps.links.read(token);
  if (!reading.ok && reading.why !== 'expired') return { kind: 'refused', status: 400, html: INVALID_LINK_PAGE };
  const record = await deps.store.get(reading.claim.interactionId);
  if (record === null) return { kind: 'refused', status: 404, html: LINK_NOT_AVAILABLE_PAGE };
  // How the question ended says more than that the link expired, so it comes first.
  if (record.status !== 'pending') return { kind: 'refused', ...endedPage(record) };
  if (!reading.ok) return { kind: 'refused', status: 410, html: EXPIRED_LINK_PAGE };
  return { kind: 'open', claim: reading.claim, record };
}

/** How a question that takes no more answers ended, as a page. */
function endedPage(record: StoredInteraction): { status: number; html: string } {
  return record.status === 'answered'
    ? { status: 200, html: answeredOutcomePage(record) }
    : { status: 410, html: closedPage(record) };
}

/**
 * True when the POST came from a page of this origin. Browsers send `Sec-Fetch-Site` (and its word is final);
 * without it, an `Origin` other than this gateway's is refused. `Origin: null` is what a page under `no-referrer`
 * sends for its own form, so it is not refused; the token the form repeats is the capability either way.
 */
function fromOwnPage(req: Request, publicBaseUrl: string | null): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = req.get('origin');
  if (origin === undefined || origin === 'null') return true;
  const own = publicBaseUrl === null ? `${req.protocol}://${req.get('host') ?? ''}` : new URL(publicBaseUrl).origin;
  return origin === own;
}

function formToken(req: Request): string | null {
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body)) return null;
  return new URLSearchParams(body.toString('utf8')).get('token');
}

export function actionLinkRouter(deps: ActionLinkDoorDeps): Router {
  const router = Router();
  const flood = floodControl(deps.store, deps.rate, 'action-link');
  // A form post carries the token alone: a few hundred bytes. Anything larger is not this page's form.
  const form = raw({ type: 'application/x-www-form-urlencoded', limit: '8kb', inflate: false });

  router.get(PATH, flood, async (req, res) => {
    const token = req.params['token'] as string;
    const opened = await open(deps, token);
    if (opened.kind === 'refused') return sendPage(res, opened.status, opened.html);
    const { record, claim } = opened;
    sendPage(res, 200, confirmChoicePage(record, claim, token));
  });

  router.post(PATH, flood, form, async (req, res) => {
    const token = req.params['token'] as string;
    if (!fromOwnPage(req, deps.publicBaseUrl) || formToken(req) !== token) return sendPage(res, 403, NOT_FROM_THE_PAGE);
    const opened = await open(deps, token);
    if (opened.kind === 'refused') return sendPage(res, opened.status, opened.html);
    const { record, claim } = opened;
    // The same way a tap on a chat button goes; the link's channel is the surface it must be on.
    const outcome = await deps.dispatch({
      question: { by: 'id', id: record.id },
      surface: { channel: claim.channel },
      pick: { kind: 'answer', answer: claim.answer },
      answeredBy: `${claim.channel}:${claim.recipient}`,
      params: null,
      replyTo: null,
    });
    switch (outcome.kind) {
      case 'answered':
        return sendPage(res, 200, sentPage(record, claim));
      case 'voted':
        return sendPage(res, 200, votedPage(record, claim));
      case 'closed': {
        // Someone else's answer won first (show theirs, read back with its result), or the question ended.
        const ended = outcome.status === 'answered' ? ((await deps.store.get(record.id)) ?? record) : outcome.question;
        const page = endedPage(ended.status === 'pending' ? { ...ended, status: outcome.status } : ended);
        return sendPage(res, page.status, page.html);
      }
      case 'refused':
        if (outcome.refusal.code === 'not_an_approver') return sendPage(res, 403, notAnApproverPage(record, claim));
        return sendPage(res, 400, INVALID_LINK_PAGE);
      case 'ready':
      case 'wrong_surface':
        return sendPage(res, 400, INVALID_LINK_PAGE);
      case 'not_found':
        return sendPage(res, 404, LINK_NOT_AVAILABLE_PAGE);
    }
  });

  // A person sees a page, not JSON, when the door refuses (too many requests, a failure).
  router.use(PATH, (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof AskgateError)) return next(err);
    res.set(errorHeaders(err));
    sendPage(res, STATUS_OF[err.code], linkErrorPage(err.message));
  });
  return router;
}
