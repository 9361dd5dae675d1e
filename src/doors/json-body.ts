import { json, type RequestHandler } from 'express';
import { AskgateError } from '../core/errors.js';

/**
 * The JSON doors' body parsing: a body sent under another Content-Type (or none — `curl -d` sends
 * application/x-www-form-urlencoded) is refused saying so, instead of reaching the door as "no body" and being told
 * it is not a JSON object; then express's parser, with the door's size limit.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = json({ limit, strict: false });
  return (req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && req.is('application/json') === false) {
      const sent = req.headers['content-type'];
      next(
        new AskgateError(
          'invalid_request',
          `the body must be JSON, sent with Content-Type: application/json (this request's is ${
            sent === undefined ? 'missing' : JSON.stringify(sent)
          }).`,
          { field: 'body' },
        ),
      );
      return;
    }
    parse(req, res, next);
  };
}
