/**
 * Exponential backoff with full jitter: the wait before retry `retry` (1-based) is drawn from [d/2, d] with
 * d = baseMs · 2^(retry-1), at most `capMs`. The jitter spreads the retries of many jobs whose receiver came back at
 * once. The one formula of every retry askgate schedules: the run jobs' (src/queue) and the confirmations bridge's.
 */
export function jitteredBackoffMs(retry: number, baseMs: number, capMs = Number.POSITIVE_INFINITY): number {
  const d = Math.min(baseMs * 2 ** Math.max(retry - 1, 0), capMs);
  return Math.round(d / 2 + Math.random() * (d / 2));
}
