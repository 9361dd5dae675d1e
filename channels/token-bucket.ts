/**
 * The in-process token bucket both chat channels pace with (Slack per channel and per method, Telegram per chat and
 * for the bot). It hands out waits instead of refusals, so callers queue in arrival order rather than fail.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Reserves one token; returns how long the caller must wait for it (ms). */
  reserve(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000);
  }

  /** Full again (nothing owed): the bucket can be forgotten. */
  get idle(): boolean {
    return this.tokens + ((this.now() - this.last) / 1000) * this.perSecond >= this.burst;
  }
}
