import type { Clock } from './ports.js';

/**
 * A question's send that failed on the way — a reset or refused connection, a timeout: the channel marks such an
 * error `transient: true` (channels/transient.ts) — is tried again a few times within a bounded time before the ask
 * is refused with 502. A platform's own refusal (a 4xx, a render limit) is final at once; a 429 is paced by the
 * channel itself and never reaches this loop as transient.
 *
 * The bound: at most `tries` sends, the pauses between them taken from `backoffMs` (the last one repeats), and no
 * send is started once `withinMs` would be passed by its pause. One send's own time is its client's timeout.
 */
export interface TransientRetryPolicy {
  tries: number;
  backoffMs: readonly number[];
  withinMs: number;
}

/** Three sends: the first, one after 250 ms, one a second after that; none started more than 5 s after the first. */
export const DELIVERY_RETRY: TransientRetryPolicy = { tries: 3, backoffMs: [250, 1000], withinMs: 5000 };

/** An error a channel marked as a failure on the way, worth a second send (duck-typed: the core knows no channel). */
export function isTransient(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { transient?: unknown }).transient === true;
}

export interface TransientRetryDeps {
  now: Clock;
  sleep?: (ms: number) => Promise<void>;
  /** Told before each repeat: the failure that caused it and the try about to start (2, 3, …). */
  onRetry?: (err: unknown, nextTry: number) => void;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `send`, repeating it after a transient failure as `policy` allows; the last failure is thrown as it came. */
export async function retryTransient<T>(
  send: () => Promise<T>,
  deps: TransientRetryDeps,
  policy: TransientRetryPolicy = DELIVERY_RETRY,
): Promise<T> {
  const sleep = deps.sleep ?? realSleep;
  const started = deps.now();
  for (let tried = 1; ; tried++) {
    try {
      return await send();
    } catch (err) {
      const pause = policy.backoffMs[Math.min(tried, policy.backoffMs.length) - 1] ?? 0;
      if (!isTransient(err) || tried >= policy.tries || deps.now() - started + pause > policy.withinMs) throw err;
      deps.onRetry?.(err, tried + 1);
      await sleep(pause);
    }
  }
}
