import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalPacer, pacingTransformer } from '../../channels/telegram/pacing.js';

/**
 * The pacing transformer after the process stalls (a long GC, a busy core): every turn that passed meanwhile wakes at
 * once, and a call that wakes more than LATE_TURN_MS after its turn takes a new one instead of leaving with the
 * others. On vitest's fake clock, so the stall is exactly 400 ms and nothing else is late: a loaded host cannot add
 * stalls of its own. The lateness check is the transformer's, shared by the in-process and the Redis pacer; the
 * in-process one is used here because the Redis one reads Redis' clock, which no fake clock moves.
 */

/** The most departures in any `windowMs` (sorted times). */
function mostWithin(times: readonly number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * The fake clock's `jump` (@sinonjs/fake-timers, which vitest's fake timers are): time moves on by `ms` at once and
 * every timer due meanwhile fires once, at the end — what a blocked event loop does to real timers. vitest does not
 * re-export it; the fake setTimeout carries its clock.
 */
function stall(ms: number): void {
  (setTimeout as unknown as { clock: { jump(ms: number): void } }).clock.jump(ms);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Telegram pacing after the process stalls', () => {
  it('gives up turns missed during a stall rather than sending them all at once: never over 30 in 900 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 0 });
    const pacer = new LocalPacer({}, () => Date.now());
    const departures: number[] = [];
    type Send = (method: string, payload: unknown) => Promise<{ ok: true; result: true }>;
    const send: Send = async () => {
      departures.push(Date.now());
      return { ok: true, result: true };
    };
    const paced = pacingTransformer(pacer) as unknown as (
      prev: Send,
      method: string,
      payload: unknown,
    ) => Promise<unknown>;
    // 90 messages to 90 chats at the bot's 30/s (a turn every 34 ms); 1.2 s in, the loop is blocked for 400 ms: the
    // twelve turns inside the stall wake together at 1.6 s. Sent on those turns, 39 would leave within 900 ms.
    let settled = 0;
    const sends = Array.from({ length: 90 }, (_, i) =>
      paced(send, 'sendMessage', { chat_id: i }).then(() => settled++),
    );
    await vi.advanceTimersByTimeAsync(1200);
    const beforeStall = departures.length;
    stall(400);
    for (let i = 0; i < 200 && settled < 90; i++) await vi.advanceTimersByTimeAsync(50);
    await Promise.all(sends);
    expect(departures).toHaveLength(90);
    // The stall happened with turns still to come: 37 left in the first 1.2 s (0 ms to 1200 ms), one per turn.
    expect(beforeStall).toBe(37);
    expect(mostWithin(departures, 900)).toBeLessThanOrEqual(30);
  });
});
