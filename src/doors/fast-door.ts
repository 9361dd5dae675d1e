import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Identity, Scope } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import type { TokenAuthenticator } from './auth.js';
import { errorResponse } from './error-status.js';

/** The JSON doors' body limit (`json({ limit: '1mb' })`). */
const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/json(\s*;\s*charset="?utf-8"?)?$/i;

/** One door served ahead of express: its path, the scope its token needs, and its work once the body is parsed. */
export interface FastDoor {
  /** The exact path (no query string, no trailing slash); a capture group per path parameter. */
  path: RegExp;
  scope: Scope;
  /** A long-poll: `serve` gets a signal that fires when the asker goes away before the response is written. */
  abortable?: boolean;
  /**
   * The response's status and JSON body (no body: an empty response, as a 204); a throw becomes the error body
   * express's handler would write.
   */
  serve(
    params: RegExpExecArray,
    payload: unknown,
    identity: Identity,
    signal: AbortSignal | null,
    /** The request's headers, for a door whose work reads one (the answer door's client name). */
    headers: IncomingHttpHeaders,
  ): Promise<{ status: number; body?: unknown }>;
}

/**
 * Hot doors served ahead of express for the plain request every client sends: `POST` to the door's exact path with
 * a known bearer token holding the door's scope and an identity-encoded UTF-8 JSON body of a declared length up to
 * 1 MiB. Each does exactly what its express route does — the same service call, the same error bodies
 * (`errorResponse`, shared with the express error handler) — without the router, the body-parser stack and the
 * middleware chain, which cost more CPU than the work itself. The response carries no ETag (nothing caches a
 * POST's response) and no X-Powered-By.
 *
 * Anything else returns false before a byte of the body is read, and express serves it: a missing, unknown or
 * under-scoped token (its 401 / 403), another content type, a compressed or chunked body, a path needing decoding,
 * a trailing slash, a query string or other spelling of the path, and every request while debug logging is on
 * (the request log).
 */
export function fastDoors(
  doors: readonly FastDoor[],
  auth: TokenAuthenticator,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url;
    if (url === undefined) return false;
    let door: FastDoor | undefined;
    let params: RegExpExecArray | null = null;
    for (const candidate of doors) {
      params = candidate.path.exec(url);
      if (params !== null) {
        door = candidate;
        break;
      }
    }
    if (door === undefined || params === null) return false;
    const headers = req.headers;
    const type = headers['content-type'];
    const encoding = headers['content-encoding'];
    const length = Number(headers['content-length']);
    if (
      type === undefined ||
      !JSON_TYPE.test(type) ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    )
      return false;
    if (!(length > 0 && length <= BODY_LIMIT) || headers['transfer-encoding'] !== undefined) return false;
    if (logger.isLevelEnabled('debug')) return false;
    const identity = auth.fromHeader(headers.authorization);
    if (identity === null || !identity.scopes.has(door.scope)) return false;

    const serve = door.serve;
    const matched = params;
    const gone = door.abortable === true ? closedBeforeReply(res) : null;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
        if (gone !== null) gone.done();
        if (res.destroyed) return;
        if (body === undefined) {
          res.writeHead(status, extra);
          res.end();
          return;
        }
        const json = JSON.stringify(body);
        res.writeHead(status, {
          ...extra,
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(json),
        });
        res.end(json);
      };
      const fail = (err: unknown): void => {
        const { status, body, headers: extra } = errorResponse(err, logger);
        reply(status, body, extra);
      };
      let payload: unknown;
      try {
        let text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // body-parser's decoder drops a byte-order mark
        payload = text.length === 0 ? {} : (JSON.parse(text) as unknown);
      } catch {
        fail({ type: 'entity.parse.failed' });
        return;
      }
      let served: Promise<{ status: number; body?: unknown }>;
      try {
        served = serve(matched, payload, identity, gone === null ? null : gone.signal, headers);
      } catch (err) {
        fail(err);
        return;
      }
      served.then(({ status, body }) => reply(status, body), fail);
    });
    return true;
  };
}

/** A signal that fires when the response closes before it is written (the asker went away mid long-poll). */
function closedBeforeReply(res: ServerResponse): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableEnded) controller.abort(new Error('the asker went away'));
  };
  res.on('close', onClose);
  return { signal: controller.signal, done: () => res.off('close', onClose) };
}
