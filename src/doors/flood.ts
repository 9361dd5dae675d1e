import type { RequestHandler } from 'express';
import { AskgateError } from '../core/errors.js';
import type { Store } from '../core/store-port.js';

/** The flood budget: at most `limit` requests per client address in each fixed window of `windowSeconds`. */
export interface FloodBudget {
  limit: number;
  windowSeconds: number;
}

/**
 * Flood control for a public door: a fixed-window counter per client address, kept in the store so every process
 * on one Redis shares it (in memory on the embedded default). Past the budget the request is refused with 429 and
 * `Retry-After` = whole seconds left in the window, which is exactly when a retry can succeed.
 *
 * The address is `req.ip`: express honours X-Forwarded-For only from the configured trusted proxy
 * (`ASKGATE_TRUST_PROXY` → 'trust proxy'), so a client cannot pick its own bucket by forging the header.
 * `family` keeps the counters of different doors apart.
 */
export function floodControl(store: Store, budget: FloodBudget, family: string): RequestHandler {
  return async (req, _res, next) => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const hit = await store.hitWindow(`${family}:${address}`, budget.windowSeconds);
    if (hit.count > budget.limit) {
      throw new AskgateError('rate_limited', `too many requests from this address; retry in ${hit.resetInSeconds} s.`, {
        extra: { retry_after: hit.resetInSeconds },
      });
    }
    next();
  };
}
