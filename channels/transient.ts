/**
 * Whether a failed call failed on the way rather than at the platform: the connection was reset or refused, the
 * name did not resolve for now, or the call timed out. Such a send may go through if tried again (the core repeats
 * a question's delivery a few times, src/core/delivery-retry.ts); a platform's answer, even a 5xx, is not one.
 *
 * The SDKs wrap the socket's error differently — grammY's HttpError keeps it as `error`, Slack's WebAPIRequestError,
 * fetch and undici as `cause`, axios (twilio) and node-fetch pass Node's own `code` — so the chain is followed
 * through both fields.
 *
 * SMTP is the one protocol whose own answer can be transient: a 4yz reply (RFC 5321 §4.2.1: "the command was not
 * accepted ... but the error condition is temporary", a greylisting 451, a full mailbox 452, a busy server 421).
 * nodemailer keeps the reply code as `responseCode` beside the SMTP `command` it answered, and names a connection
 * that failed or closed mid-way `ECONNECTION`.
 */

/** Node's and undici's codes for a connection that failed or timed out. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EAI_AGAIN',
  // No local port free for a new connection (a loaded host opening many at once): nothing reached the platform.
  'EADDRNOTAVAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  // nodemailer: the SMTP connection could not be made or closed before the server answered.
  'ECONNECTION',
]);

/** An SMTP reply of the 4yz class, as nodemailer's errors carry it. */
function isSmtpTransientReply(e: { responseCode?: unknown; command?: unknown }): boolean {
  return (
    typeof e.command === 'string' && typeof e.responseCode === 'number' && e.responseCode >= 400 && e.responseCode < 500
  );
}

/** Error names that mean a timeout (AbortSignal.timeout, undici's timeout errors). */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError']);

/** The most links followed: an error's causes never go deeper than a few SDK wrappers. */
const MAX_DEPTH = 8;

export function isTransientNetworkFailure(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < MAX_DEPTH) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, name, cause, error } = e as { code?: unknown; name?: unknown; cause?: unknown; error?: unknown };
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
    if (typeof name === 'string' && TIMEOUT_NAMES.has(name)) return true;
    if (isSmtpTransientReply(e as { responseCode?: unknown; command?: unknown })) return true;
    queue.push(cause, error);
  }
  return false;
}
