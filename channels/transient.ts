/**
 * Whether a failed call failed on the way rather than at the platform: the connection was reset or refused, the
 * name did not resolve for now, or the call timed out. Such a send may go through if tried again (the core repeats
 * a question's delivery a few times, src/core/delivery-retry.ts); a platform's answer, even a 5xx, is not one.
 *
 * The SDKs wrap the socket's error differently — grammY's HttpError keeps it as `error`, Slack's WebAPIRequestError,
 * fetch and undici as `cause`, axios (twilio) and node-fetch pass Node's own `code` — so the chain is followed
 * through both fields.
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
]);

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
    queue.push(cause, error);
  }
  return false;
}
