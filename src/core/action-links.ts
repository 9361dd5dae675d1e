import { createHmac, timingSafeEqual } from 'node:crypto';
import { AskgateError, invalid } from './errors.js';
import { checkAnswer } from './formats/index.js';
import type { StoredInteraction } from './types.js';

/**
 * Signed action links: a URL a channel puts in a message (an email's "Yes" / "No", an SMS's link) that answers one
 * question with one choice for one recipient. The token is the capability, so it carries no secret of its own and
 * needs no storage: `v1.<claim>.<signature>`, the claim base64url JSON, the signature HMAC-SHA256 over
 * `askgate-action-link.v1.<claim>` with the gateway's link secret (ASKGATE_LINK_SECRET), compared in constant time.
 * `GET /a/{token}` shows what the click will do and one button; only the POST from that button answers, so a mail
 * scanner that follows every link answers nothing (docs/action-links.md).
 */

/** What a channel asks a link for. */
export interface ActionLinkRequest {
  /** The channel whose message carries the link: the answer's `surface`. It must be one of the question's surfaces. */
  channel: string;
  /** The person the message goes to, as the channel names them (an address, a number): `answered_by` is `channel:recipient`. */
  recipient: string;
  /** The one answer the link gives: `true` / `false` for a confirm question, a choice's exact text for select. */
  answer: boolean | string;
  /** When the link stops working; never later than the question's deadline (the default). */
  expiresAt?: Date;
}

/** What a token says, once its signature checked. */
export interface ActionLinkClaim {
  interactionId: string;
  channel: string;
  recipient: string;
  answer: boolean | string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * A token read back: `malformed` (not a token of this form at all), `forged` (its signature does not match: changed,
 * cut short, or made with another secret) or `expired` (authentic, past its expiry: the claim is still given, so the
 * page can show how the question ended).
 */
export type ActionLinkReading =
  | { ok: true; claim: ActionLinkClaim }
  | { ok: false; why: 'malformed' | 'forged' }
  | { ok: false; why: 'expired'; claim: ActionLinkClaim };

/** The link-making face channels see (ChannelCore.actionLinks). */
export interface ActionLinkMaker {
  /** The absolute URL `{INTERACTIONS_PUBLIC_BASE_URL}/a/{token}`; throws a clear error for a link that cannot be. */
  link(record: StoredInteraction, request: ActionLinkRequest): string;
}

/** The path of the door, with the token as its last segment. */
export const ACTION_LINK_PATH_PREFIX = '/a/';
/** The shortest link secret taken: 32 characters (`openssl rand -hex 32` gives 64). */
export const MIN_LINK_SECRET_LENGTH = 32;

const VERSION = 'v1';
const DOMAIN = `askgate-action-link.${VERSION}.`;

export class ActionLinks implements ActionLinkMaker {
  private readonly secret: Buffer;

  constructor(
    secret: string,
    private readonly publicBaseUrl: string,
    private readonly now: () => number = Date.now,
  ) {
    if (secret.length < MIN_LINK_SECRET_LENGTH)
      throw new Error(`the link secret must be at least ${MIN_LINK_SECRET_LENGTH} characters`);
    this.secret = Buffer.from(secret, 'utf8');
  }

  link(record: StoredInteraction, request: ActionLinkRequest): string {
    return `${this.publicBaseUrl}${ACTION_LINK_PATH_PREFIX}${this.token(record, request)}`;
  }

  /** The token alone (the link's last path segment). */
  token(record: StoredInteraction, request: ActionLinkRequest): string {
    refuseUnfit(record, request);
    const deadline = Date.parse(record.deadline_at);
    const wanted = request.expiresAt?.getTime() ?? deadline;
    if (Number.isNaN(wanted)) throw linkError('expiresAt', 'is not a valid date');
    const claim = {
      i: record.id,
      c: request.channel,
      r: request.recipient,
      a: request.answer,
      // Whole seconds, never past the question's deadline: a link outliving its question could only be refused.
      e: Math.floor(Math.min(wanted, deadline) / 1000),
    };
    const body = Buffer.from(JSON.stringify(claim), 'utf8').toString('base64url');
    return `${VERSION}.${body}.${this.sign(body).toString('base64url')}`;
  }

  /** Reads a token: its signature first (constant time), then its claim, then its expiry. */
  read(token: string): ActionLinkReading {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, why: 'malformed' };
    const [, body = '', signature = ''] = parts;
    if (!/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]{43}$/.test(signature))
      return { ok: false, why: 'malformed' };
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'forged' };
    const claim = parseClaim(body);
    // Signed by this gateway but not a claim it writes: only a bug could make one, so it is told apart from forged.
    if (claim === null) return { ok: false, why: 'malformed' };
    if (claim.expiresAt <= this.now()) return { ok: false, why: 'expired', claim };
    return { ok: true, claim };
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.secret).update(DOMAIN).update(body).digest();
  }
}

/** A link on a question no link can answer is refused where it is made, naming what is wrong. */
function refuseUnfit(record: StoredInteraction, request: ActionLinkRequest): void {
  if (record.status !== 'pending')
    throw linkError('status', `is ${record.status}; only a pending question takes a link`);
  if (record.answer_format !== 'confirm' && record.answer_format !== 'select')
    throw linkError(
      'answer_format',
      `is ${record.answer_format}; an action link carries one choice of a confirm or select question`,
    );
  if (record.verifier_binding !== null)
    throw linkError('verifier', 'is set; a verifier-bound question is answered only through its signed callback');
  const surfaces = [record.channel, ...(record.extra_surfaces ?? []).map((s) => s.channel)];
  if (!surfaces.includes(request.channel))
    throw linkError('channel', `"${request.channel}" is not one of the question's surfaces`);
  if (request.recipient === '') throw linkError('recipient', 'is empty; name the person the link is for');
  try {
    checkAnswer(record, request.answer);
  } catch (err) {
    if (err instanceof AskgateError) throw linkError('answer', `does not answer the question: ${err.message}`);
    throw err;
  }
}

const linkError = (field: string, what: string): AskgateError =>
  invalid(field, `cannot make an action link: ${field} ${what}.`);

function parseClaim(body: string): ActionLinkClaim | null {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const { i, c, r, a, e } = raw as Record<string, unknown>;
  if (typeof i !== 'string' || typeof c !== 'string' || typeof r !== 'string' || typeof e !== 'number') return null;
  if (typeof a !== 'boolean' && typeof a !== 'string') return null;
  return { interactionId: i, channel: c, recipient: r, answer: a, expiresAt: e * 1000 };
}
