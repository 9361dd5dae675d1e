import { afterEach, describe, expect, it, vi } from 'vitest';
import { jitteredBackoffMs } from '../../src/core/backoff.js';
import { bridgeRetryDelayMs } from '../../src/confirmations/ladder.js';
import { backoffDelay } from '../../src/queue/queues.js';

/** The one backoff: [d/2, d] with d = base · 2^(retry-1), capped; the run jobs cap it at 15 minutes, the bridge not. */

afterEach(() => {
  vi.restoreAllMocks();
});

/** The delay with the jitter at its least (random 0) and at its most (random just under 1). */
function extremes(delay: () => number): [number, number] {
  const random = vi.spyOn(Math, 'random');
  random.mockReturnValue(0);
  const least = delay();
  random.mockReturnValue(0.999_999_9);
  const most = delay();
  return [least, most];
}

describe('jittered backoff', () => {
  it('doubles per retry between half and all of base · 2^(retry-1)', () => {
    expect(extremes(() => jitteredBackoffMs(1, 1000))).toEqual([500, 1000]);
    expect(extremes(() => jitteredBackoffMs(2, 1000))).toEqual([1000, 2000]);
    expect(extremes(() => jitteredBackoffMs(4, 1000))).toEqual([4000, 8000]);
    // A retry count below 1 (BullMQ counts attempts from 1) waits as the first.
    expect(extremes(() => jitteredBackoffMs(0, 1000))).toEqual([500, 1000]);
  });

  it('caps d before the jitter', () => {
    expect(extremes(() => jitteredBackoffMs(10, 1000, 60_000))).toEqual([30_000, 60_000]);
  });

  it('run jobs cap at 15 minutes; the confirmations bridge climbs from 0.5 s uncapped', () => {
    expect(extremes(() => backoffDelay(30, 1000))).toEqual([450_000, 900_000]);
    expect(extremes(() => backoffDelay(3, 250))).toEqual([500, 1000]);
    expect(extremes(() => bridgeRetryDelayMs(1))).toEqual([250, 500]);
    expect(extremes(() => bridgeRetryDelayMs(5))).toEqual([4000, 8000]);
  });
});
