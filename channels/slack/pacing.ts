import {
  MAX_429_RETRIES,
  MAX_RETRY_AFTER_SECONDS,
  METHOD_PER_MINUTE,
  PER_CHANNEL_BURST,
  PER_CHANNEL_PER_SECOND,
} from './limits.js';
import type { SharedPacer } from '../shared-pacing.js';
import { TokenBucket } from '../token-bucket.js';

/**
 * Outbound pacing for the Web API, wrapped around each call: a token bucket per channel for the methods that post
 * into it (about 1 message/s, a small burst), one per method for its tier, then a 429 is honoured by waiting its
 * Retry-After and trying again. The WebClient is built with `rejectRateLimitedCalls`, so a 429 reaches this layer
 * instead of being retried inside the client for up to thirty minutes.
 *
 * views.open is never paced: its trigger_id dies 3 s after the tap, so queueing it would only waste it.
 * On the in-memory store the buckets live in this process. On a shared store every budget is one for every process posting
 * as the bot, reserved in one step of the channel state (channels/shared-pacing.ts): the per-channel budget and the workspace's cap
 * on chat.postMessage (`shared`), and each other method's tier (`sharedMethod`: one call per 60 000 / tier ms for
 * the workspace, no burst). A 429 pushes back every shared budget the call counted against, so each process's next
 * reservation lands after its Retry-After.
 */

export interface SlackPacingOptions {
  /** Messages per second into one channel. Default `PER_CHANNEL_PER_SECOND` (1). */
  perChannelPerSecond?: number;
  /** Messages one channel may take at once before pacing starts. Default `PER_CHANNEL_BURST` (3). */
  perChannelBurst?: number;
  /** Calls per minute per method (tiers). Default `METHOD_PER_MINUTE`. */
  methodPerMinute?: Readonly<Record<string, number>>;
  /** The longest Retry-After waited through in one call; a longer one fails the call. Default 30 s. */
  maxRetryAfterSeconds?: number;
  /** 429 retries per call. Default 3. */
  max429Retries?: number;
  /** The per-channel budget shared by every process; absent: per-process buckets. */
  shared?: SharedPacer;
  /**
   * A method's tier shared by every process (its scope is {@link METHOD_SCOPE}); undefined for a method
   * without one there (then its tier, if any, is this process's bucket).
   */
  sharedMethod?: (method: string) => SharedPacer | undefined;
  /** How to wait (ms). Default a timer; tests inject one to see the waits without spending them. */
  sleep?: (ms: number) => Promise<void>;
}

/** The methods that put a message into a channel (and so count against its per-channel budget). */
const CHANNEL_METHODS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral']);
/** Methods that must never wait in a bucket (see above). */
const UNPACED = new Set(['views.open']);
/** The one "chat" of a method's shared tier: the tier is the workspace's, so every call of the method shares it. */
export const METHOD_SCOPE = 'method';

/** The WebClient's rate-limit refusal, read by shape so this module needs no SDK import. */
function retryAfterOf(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; retryAfter?: unknown };
  return e.code === 'slack_webapi_rate_limited_error' && typeof e.retryAfter === 'number' ? e.retryAfter : null;
}

export class SlackPacer {
  private readonly channels = new Map<string, TokenBucket>();
  private readonly methods = new Map<string, TokenBucket>();
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SlackPacingOptions = {}) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private channelBucket(channel: string): TokenBucket {
    let bucket = this.channels.get(channel);
    if (bucket === undefined) {
      // Forget idle channels now and then, so a bot that talks to many people does not grow this map forever.
      if (this.channels.size > 10_000) for (const [id, b] of this.channels) if (b.idle) this.channels.delete(id);
      bucket = new TokenBucket(
        this.options.perChannelPerSecond ?? PER_CHANNEL_PER_SECOND,
        this.options.perChannelBurst ?? PER_CHANNEL_BURST,
      );
      this.channels.set(channel, bucket);
    }
    return bucket;
  }

  private methodBucket(method: string): TokenBucket | null {
    const perMinute = (this.options.methodPerMinute ?? METHOD_PER_MINUTE)[method];
    if (perMinute === undefined) return null;
    let bucket = this.methods.get(method);
    if (bucket === undefined) {
      bucket = new TokenBucket(perMinute / 60, Math.max(1, Math.ceil(perMinute / 10)));
      this.methods.set(method, bucket);
    }
    return bucket;
  }

  /** Runs one Web API call under the channel's and the method's budgets, retrying a 429 after its Retry-After. */
  async run<T>(method: string, channel: string | null, call: () => Promise<T>): Promise<T> {
    const maxRetryAfter = this.options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS;
    const maxRetries = this.options.max429Retries ?? MAX_429_RETRIES;
    for (let attempt = 0; ; attempt++) {
      const shared = CHANNEL_METHODS.has(method) && channel !== null ? this.options.shared : undefined;
      const tier = UNPACED.has(method) ? undefined : this.options.sharedMethod?.(method);
      if (!UNPACED.has(method)) {
        const channelWait =
          shared !== undefined
            ? await shared.reserve(channel)
            : CHANNEL_METHODS.has(method) && channel !== null
              ? this.channelBucket(channel).reserve()
              : 0;
        const methodWait =
          tier !== undefined ? await tier.reserve(METHOD_SCOPE) : (this.methodBucket(method)?.reserve() ?? 0);
        const wait = Math.max(channelWait, methodWait);
        if (wait > 0) await this.sleep(wait);
        // The last gates: the actual departures, not only the planned slots, are an interval apart.
        if (shared !== undefined) await shared.depart(channel as string);
        if (tier !== undefined) await tier.depart(METHOD_SCOPE);
      }
      const settle = async (): Promise<void> => {
        if (shared !== undefined) await shared.settled(channel as string);
        if (tier !== undefined) await tier.settled(METHOD_SCOPE);
      };
      try {
        const result = await call();
        await settle();
        return result;
      } catch (err) {
        await settle();
        const retryAfter = retryAfterOf(err);
        if (retryAfter === null || attempt >= maxRetries || retryAfter > maxRetryAfter || UNPACED.has(method))
          throw err;
        // Shared: the channel's budget and the method's tier move past the Retry-After for every process, and the
        // next reservation (which waits it out) is this call's retry.
        if (shared !== undefined) await shared.pushBack(channel, retryAfter * 1000);
        if (tier !== undefined) await tier.pushBack(METHOD_SCOPE, retryAfter * 1000);
        if (shared === undefined && tier === undefined) await this.sleep(retryAfter * 1000);
      }
    }
  }
}
