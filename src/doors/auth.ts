import { hash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AskgateError } from '../core/errors.js';
import type { Identity, Scope } from '../core/types.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by `authenticate` on the authenticated doors. */
    identity?: Identity;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearerToken(header: string | undefined): string | null {
  const match = header === undefined ? null : BEARER.exec(header);
  return match === null ? null : (match[1] as string);
}

/** The identity `TokenAuthenticator.require` set; a door reached without one is a wiring bug, refused as 401. */
export function identityOf(req: Request): Identity {
  if (req.identity === undefined) throw new AskgateError('unauthorized', 'this door needs a bearer token.');
  return req.identity;
}

/**
 * Bearer-token authentication. A presented token is hashed (SHA-256) behind a key drawn at random per process, and
 * the digest is looked up among the digests of the known tokens. Comparing secrets this way leaks nothing through
 * timing: what the lookup compares are digests under a key nobody outside the process knows, so how long a lookup
 * takes says nothing about any token's bytes (or length), and the cost per request does not grow with the number
 * of tokens. A keyed hash rather than an HMAC: no digest ever leaves the process, so a length extension gains
 * nobody anything, and the one-shot `crypto.hash` costs a fifth of building an HMAC object on every request.
 */
export class TokenAuthenticator {
  private readonly key = randomBytes(32).toString('base64');
  private readonly byMac = new Map<string, Identity>();

  constructor(tokens: Map<string, Identity>) {
    for (const [token, identity] of tokens) this.byMac.set(this.mac(token), identity);
  }

  private mac(token: string): string {
    return hash('sha256', `${this.key}\n${token}`, 'base64');
  }

  identify(token: string): Identity | null {
    return this.byMac.get(this.mac(token)) ?? null;
  }

  /** The identity of an `Authorization: Bearer <token>` header, when it names a known token; else null. */
  fromHeader(header: string | undefined): Identity | null {
    const token = bearerToken(header);
    return token === null ? null : this.identify(token);
  }

  /** Middleware: 401 without a known bearer token, 403 without the scope. */
  require(scope: Scope): RequestHandler {
    return (req, _res, next) => {
      const token = bearerToken(req.headers.authorization);
      if (token === null) {
        next(
          new AskgateError(
            'unauthorized',
            'send Authorization: Bearer <token>; the dev token is printed when askgate starts.',
          ),
        );
        return;
      }
      const identity = this.identify(token);
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
