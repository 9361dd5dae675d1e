import { describe, expect, it } from 'vitest';
import { interleavedPhases, timeSlicedPhases } from '../../bench/harness.js';
import { cpuNote, processCpuMicros, startCpuAccount } from '../../bench/process-cpu.js';

/**
 * Spends `ms` milliseconds of this process's own CPU (not of wall time: on a loaded machine a wall-clock spin gets
 * only part of a core, and an assertion on its CPU would depend on the load).
 */
function spin(ms: number): void {
  const cpu = (): number => {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  };
  const end = cpu() + ms * 1000;
  let x = 0;
  while (cpu() < end) x += Math.sqrt(x + 1);
  if (x < 0) throw new Error('unreachable');
}

describe('the bench harness', () => {
  it('runs two sides in alternating slices after warming both, every call numbered from the warm-up on', async () => {
    const order: string[] = [];
    const calls = { a: [] as number[], b: [] as number[] };
    const side = (name: 'a' | 'b') => ({
      call: async (i: number) => {
        calls[name].push(i);
        order.push(name);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    const [a, b] = await interleavedPhases({ warmup: 3, total: 10, concurrency: 1, slices: 3 }, side('a'), side('b'));
    // Warm-up (3 each), then slices of 4, 4 and 2 calls, alternating a, b.
    const runs = order.join('').match(/a+|b+/g) ?? [];
    expect(runs.map((r) => r.length)).toEqual([3, 3, 4, 4, 4, 4, 2, 2]);
    expect(runs.map((r) => r[0])).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
    expect(calls.a).toEqual([0, 1, 2, ...Array.from({ length: 10 }, (_, i) => 3 + i)]);
    expect(calls.b).toEqual(calls.a);
    expect(a.done).toBe(10);
    expect(b.done).toBe(10);
    expect(a.perSecond).toBeGreaterThan(0);
    expect(a.cpu).toBeNull();
  });

  it('gives both sides slices of the same time, so the faster side does more calls in each', async () => {
    // A fake clock: every call of side a takes 10 ms, of side b 40 ms; slices last 100 ms.
    let clock = 0;
    const order: string[] = [];
    const calls = { a: [] as number[], b: [] as number[] };
    const side = (name: 'a' | 'b', ms: number) => ({
      call: async (i: number) => {
        calls[name].push(i);
        order.push(name);
        clock += ms;
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    const [a, b] = await timeSlicedPhases(
      { warmup: 3, sliceMs: 100, slices: 2, concurrency: 1, now: () => clock },
      side('a', 10),
      side('b', 40),
    );
    // Warm-up in the same rhythm until both did 3 calls: b needs one slice (3 calls of 40 ms reach 120 ms), so one
    // warm-up slice each; then two measured slices each: a does 10 calls in 100 ms, b 3 (the third starts at 80 ms).
    const runs = order.join('').match(/a+|b+/g) ?? [];
    expect(runs.map((r) => `${r[0]}${r.length}`)).toEqual(['a10', 'b3', 'a10', 'b3', 'a10', 'b3']);
    expect(calls.a).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(calls.b).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(a.done).toBe(20);
    expect(b.done).toBe(6);
    // 20 calls in 200 ms and 6 in 240 ms of fake time.
    expect(a.perSecond).toBe(100);
    expect(b.perSecond).toBe(25);
    expect(a.p50).toBe(10);
    expect(b.p99).toBe(40);
  });

  it("accounts a side's CPU per call by process", async () => {
    const [busy] = await interleavedPhases(
      { warmup: 0, total: 4, concurrency: 1, slices: 2 },
      { call: async () => spin(30), cpu: { load: 'self' } },
      { call: async () => undefined },
    );
    // 30 ms of this process's CPU per call, spent inside the slices: at least that much, and not wildly more.
    expect(busy.cpu?.['load']).toBeGreaterThanOrEqual(30_000);
    expect(busy.cpu?.['load']).toBeLessThan(300_000);
  });

  it('reads a process’s CPU from /proc, and an account of it grows with work', () => {
    const before = processCpuMicros(process.pid);
    expect(before).toBeTypeOf('number');
    const account = startCpuAccount({ me: process.pid });
    spin(100);
    const used = account(1);
    // 100 ms of CPU, which /proc counts in 10 ms ticks: at least nine of them.
    expect(used?.['me']).toBeGreaterThanOrEqual(90_000);
    expect(processCpuMicros(2 ** 30)).toBeNull();
    expect(cpuNote({ server: 60, redis: 30 }, { server: 50, redis: 20 })).toBe(
      '; CPU µs per call, askgate / baseline: server 60 / 50, redis 30 / 20',
    );
    expect(cpuNote(null, { server: 1 })).toBe('');
  });
});
