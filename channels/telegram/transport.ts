import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * How long a kept-alive connection to the Bot API may sit idle before it is closed rather than reused: 4 s, as
 * undici (Node's fetch) does when the server announces nothing, and never beyond what the server announces
 * (`Keep-Alive: timeout=N`: Node's agent then closes it a second before the server would).
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * The connection agent grammY sends through. grammY's own keeps connections alive with no idle timeout, and Node's
 * agent applies the server's `Keep-Alive` hint only when it has a timeout of its own, so a request could be written
 * on a connection the server was closing as idle at that moment: it fails with ECONNRESET, and Telegram may or may
 * not have read it, so it is not sent again (a reminder or an outcome edit lost). A connection idle this long is
 * closed on our side first, and the next request opens a fresh one. The timeout only ever closes an idle connection:
 * a request waiting for its answer is not cut short by it.
 */
export function botApiAgent(apiRoot: string): HttpAgent | undefined {
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  if (apiRoot.startsWith('https:')) return new HttpsAgent(options);
  if (apiRoot.startsWith('http:')) return new HttpAgent(options);
  return undefined;
}
