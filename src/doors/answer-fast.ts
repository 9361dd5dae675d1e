import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionService } from '../core/interaction-service.js';
import type { Logger } from '../observability/logger.js';
import { answerWith } from './api.js';
import type { TokenAuthenticator } from './auth.js';
import { errorResponse } from './error-status.js';

/** The answer door's path, when the id needs no decoding (ids are base64url). */
// An id is base64url, with `.<k>` when it lives in shard k ≥ 1 (core/shard-ids.ts).
const ANSWER_URL = /^\/api\/interactions\/([A-Za-z0-9_-]+(?:\.\d{1,3})?)\/answer$/;
/** The answer door's body limit (`json({ limit: '1mb' })`). */
const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/json(\s*;\s*charset="?utf-8"?)?$/i;

/**
 * The answer door, served ahead of express for the plain request every client sends: `POST
 * /api/interactions/{id}/answer` with a known bearer token holding the `answer` scope and an identity-encoded UTF-8
 * JSON body of a declared length up to 1 MiB. It does exactly what the express door (`answerDoor`) does — the same
 * payload rules and service call (`answerWith`), the same error bodies (`errorResponse`) — without the router, the
 * body-parser stack and the middleware chain, which cost more CPU than the answer itself.
 *
 * Anything else returns false before a byte of the body is read, and express serves it: a missing, unknown or
 * under-scoped token (its 401 / 403), another content type, a compressed or chunked body, an id needing decoding,
 * a trailing slash or other spelling of the path, and every request while debug logging is on (the request log).
 */
export function answerFastPath(
  service: InteractionService,
  auth: TokenAuthenticator,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url;
    const match = url === undefined ? null : ANSWER_URL.exec(url);
    if (match === null) return false;
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
    if (identity === null || !identity.scopes.has('answer')) return false;

    const id = match[1] as string;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
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
      answerWith(service, id, payload, identity).then((status) => reply(200, { status }), fail);
    });
    return true;
  };
}
