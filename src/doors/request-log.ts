import type { RequestHandler } from 'express';
import { loggablePath, type Logger } from '../observability/logger.js';

/**
 * One debug line per request; callback tickets are masked, headers (and so tokens) are never logged. Above debug
 * level nothing is timed or hooked: the hot doors pay for the log line only when it would be written.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('debug')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug(
        { method: req.method, path: loggablePath(req.path), status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}
