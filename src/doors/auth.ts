import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AskgateError } from '../core/errors.js';
import type { Identity, Scope } from '../core/types.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by `authenticate` on the authenticated doors. */
    identity?: Identity;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Bearer-token authentication. Tokens are compared as SHA-256 digests with timingSafeEqual against every known
 * token (no early exit), so neither the length nor a prefix of a token leaks through timing.
 */
export class TokenAuthenticator {
  private readonly entries: Array<{ digest: Buffer; identity: Identity }>;

  constructor(tokens: Map<string, Identity>) {
    this.entries = [...tokens].map(([token, identity]) => ({ digest: digest(token), identity }));
  }

  identify(token: string): Identity | null {
    const presented = digest(token);
    let found: Identity | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(presented, entry.digest)) found = entry.identity;
    }
    return found;
  }

  /** Middleware: 401 without a known bearer token, 403 without the scope. */
  require(scope: Scope): RequestHandler {
    return (req, _res, next) => {
      const header = req.headers.authorization;
      const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) {
        next(new AskgateError('unauthorized', 'send Authorization: Bearer <token>; the dev token is printed when askgate starts.'));
        return;
      }
      const identity = this.identify(match[1] as string);
      if (identity === null) {
        next(new AskgateError('unauthorized', 'the bearer token is not known to this gateway.'));
        return;
      }
      if (!identity.scopes.has(scope)) {
        next(new AskgateError('forbidden', `this token lacks the "${scope}" scope this door needs.`));
        return;
      }
      req.identity = identity;
      next();
    };
  }
}
