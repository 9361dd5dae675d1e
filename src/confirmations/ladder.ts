import { jitteredBackoffMs } from '../core/backoff.js';

/**
 * The bridge's retry ladder, the same in a bridge job (the queue's backoff) and in reconcile (in process): five
 * retries after the first try, 0.5 s base doubling, each delay drawn from [d/2, d] so the retries of many
 * confirmations that failed together (a store that came back) spread out.
 */
export const BRIDGE_RETRIES = 5;
export const BRIDGE_BASE_DELAY_MS = 500;

/** A ladder: how many retries follow the first try, and how long to wait before retry n (1-based). */
export interface RetryLadder {
  retries: number;
  delayMs(retry: number): number;
}

/** The jittered doubling delay before retry `retry` (1-based): askgate's one backoff (core/backoff.ts), uncapped. */
export const bridgeRetryDelayMs = (retry: number): number => jitteredBackoffMs(retry, BRIDGE_BASE_DELAY_MS);

/** The bridge's ladder as the job queue takes it. */
export const BRIDGE_LADDER: RetryLadder = { retries: BRIDGE_RETRIES, delayMs: bridgeRetryDelayMs };
