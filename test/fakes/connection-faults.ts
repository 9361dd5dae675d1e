import type { IncomingMessage } from 'node:http';

/**
 * Network failures a fake can play, shared by every platform fake: a request whose connection is reset (TCP RST)
 * as soon as it arrives, before the platform reads or answers it — what a client sees when a keep-alive connection
 * dies under it or a load balancer drops it. A reset request is counted here and never reaches the fake's handlers;
 * every request's path is kept, so a test counts the tries a client made.
 */
export interface ConnectionFaults {
  /** The next `n` requests whose path contains `pathPart` (every request without it) are reset. */
  resetNext(n: number, pathPart?: string): void;
  /** An outage: every request whose path contains `pathPart` is reset until `heal()`. */
  resetAll(pathPart?: string): void;
  /** Ends the injected failures (the count stays). */
  heal(): void;
  /** How many requests were reset. */
  readonly resets: number;
  /** How many requests whose path contains `pathPart` arrived, the reset ones included. */
  requestsTo(pathPart: string): number;
}

export interface ConnectionFaultsControl extends ConnectionFaults {
  /** Called first by the fake's request handler: true when the request was reset and must not be handled. */
  intercept(req: IncomingMessage): boolean;
}

export function connectionFaults(): ConnectionFaultsControl {
  let left = 0;
  let part = '';
  let resets = 0;
  const paths: string[] = [];
  return {
    resetNext(n, pathPart = '') {
      left = n;
      part = pathPart;
    },
    resetAll(pathPart = '') {
      left = Number.POSITIVE_INFINITY;
      part = pathPart;
    },
    heal() {
      left = 0;
    },
    get resets() {
      return resets;
    },
    requestsTo: (pathPart) => paths.filter((p) => p.includes(pathPart)).length,
    intercept(req) {
      paths.push(req.url ?? '');
      if (left <= 0 || !(req.url ?? '').includes(part)) return false;
      left--;
      resets++;
      req.socket.resetAndDestroy();
      return true;
    },
  };
}
