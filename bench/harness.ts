import { cpus, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { startCpuAccount, type CpuSubjects } from './process-cpu.js';

/**
 * The shared harness of `npm run bench`: sizes, warm-up, bounded concurrency, percentiles, the table and
 * results.json. Every figure is a ratio against a baseline measured in the same run on the same machine, because
 * absolute times on shared machines drift; the absolute numbers are kept beside the ratio for reading, never judged.
 */

/** One measured figure: askgate's value, the baseline's, and the ratio the target is stated on. */
export interface Figure {
  /** What is measured, e.g. "answers/s" or "p99 ms". */
  name: string;
  unit: string;
  value: number;
  baseline: number;
  /** What the target reads; by default value / baseline. */
  ratio: number;
  /** A target on the ratio (or, for memory, on the value): `>= 0.6`, `<= 1.5`. Null: reported, not judged. */
  target: { op: '>=' | '<='; limit: number; on: 'ratio' | 'value' } | null;
  /** Filled in by `judge`. Null when there is no target. */
  met: boolean | null;
  note?: string;
  /** Set when this one figure could not be measured here (its row says why); value and ratio are then NaN. */
  skipped?: string;
}

export interface BenchResult {
  /** The `--only` name, e.g. "answer-throughput". */
  name: string;
  title: string;
  /** What the baseline is, in a few words (the README says it in full). */
  baseline: string;
  figures: Figure[];
  /** Work done, so a reader (and the smoke test) can check the figures cover what they claim. */
  counts: Record<string, number>;
  /** Set instead of figures when the benchmark could not run here (a missing database, a missing package). */
  skipped: string | null;
  durationMs: number;
}

/** How big a run is: `--tiny` shrinks every benchmark to a size that only proves it still works. */
export interface Size {
  tiny: boolean;
}

export type Bench = (size: Size) => Promise<BenchResult>;

export function figure(f: Omit<Figure, 'met' | 'ratio'> & { ratio?: number }): Figure {
  const ratio = f.ratio ?? f.value / f.baseline;
  const judged = f.target === null ? null : f.target.on === 'ratio' ? ratio : f.value;
  const met =
    f.target === null || judged === null
      ? null
      : f.target.op === '>='
        ? judged >= f.target.limit
        : judged <= f.target.limit;
  return { ...f, ratio, met };
}

/** Rounds per timed benchmark (answer throughput, resume latency, the LangGraph comparison); the median is reported. */
export const ROUNDS = 3;

/**
 * The round whose ratio (value / baseline, each round against its own same-round baseline) is the median, so the
 * figure reported is one round's askgate and baseline side by side. With an even count, the lower middle.
 */
export function medianRound<R extends { value: number; baseline: number }>(rounds: readonly R[]): R {
  if (rounds.length === 0) throw new Error('no rounds to take the median of');
  const sorted = [...rounds].sort((a, b) => a.value / a.baseline - b.value / b.baseline);
  return sorted[Math.floor((sorted.length - 1) / 2)] as R;
}

/** Ratios of every round, for the README and results.json (e.g. "0.71, 0.76, 0.78"). */
export function roundRatios(rounds: ReadonlyArray<{ value: number; baseline: number }>): string {
  return rounds.map((r) => (r.value / r.baseline).toFixed(2)).join(', ');
}

/** Nearest-rank percentile of unsorted samples (copied and sorted here, so callers may keep theirs). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * Runs `fn(i)` for i in [0, total) with at most `concurrency` in flight; the loop stops by itself when `total` is
 * reached. A failure stops the pool and rejects, so a broken benchmark never reports a figure.
 */
export async function pool(total: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown = null;
  const lane = async (): Promise<void> => {
    while (failed === null && next < total) {
      const i = next++;
      try {
        await fn(i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  if (failed !== null) throw failed;
}

/**
 * Throughput and client-side latency of `total` calls at `concurrency`, after `warmup` calls that are not counted;
 * with `cpu`, also each named process's CPU per counted call (µs), null where /proc cannot be read.
 */
export async function loadPhase(
  opts: { warmup: number; total: number; concurrency: number; cpu?: CpuSubjects },
  call: (i: number) => Promise<void>,
): Promise<{ perSecond: number; p50: number; p99: number; done: number; cpu: Record<string, number> | null }> {
  await pool(opts.warmup, opts.concurrency, (i) => call(i));
  const latencies: number[] = [];
  const account = opts.cpu === undefined ? null : startCpuAccount(opts.cpu);
  const start = performance.now();
  await pool(opts.total, opts.concurrency, async (i) => {
    const t = performance.now();
    await call(opts.warmup + i);
    latencies.push(performance.now() - t);
  });
  const seconds = (performance.now() - start) / 1000;
  return {
    perSecond: opts.total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    done: latencies.length,
    cpu: account === null ? null : account(opts.total),
  };
}

/** One side of an interleaved measurement: its call, and the processes whose CPU it spends (process-cpu.ts). */
export interface PhaseSide {
  call: (i: number) => Promise<void>;
  cpu?: CpuSubjects;
}

export interface PhaseResult {
  perSecond: number;
  p50: number;
  p99: number;
  done: number;
  /** CPU per counted call by process (µs), null where /proc cannot be read or no subjects were named. */
  cpu: Record<string, number> | null;
}

/** A side's result from its calls, their time (ms), latencies and summed CPU per process (µs; null: not read). */
function phaseResult(
  done: number,
  ms: number,
  latencies: number[],
  cpuTotals: Record<string, number> | null,
): PhaseResult {
  let cpu: Record<string, number> | null = null;
  if (cpuTotals !== null) {
    cpu = {};
    for (const [name, us] of Object.entries(cpuTotals)) cpu[name] = Math.round((us / done) * 10) / 10;
  }
  return {
    perSecond: (done * 1000) / ms,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    done: latencies.length,
    cpu,
  };
}

/**
 * Two sides measured in alternating slices: both warmed up, then `total` calls each cut into `slices` slices run in
 * turn (first, second, first, ...), each side's rate its calls over the sum of its slices' times, its latencies and
 * CPU over all of them. Slices of a second or two put both sides under the same drift of a shared host; one long
 * phase each let a slow stretch fall on one side only. Call i of a side is numbered from `warmup` up, as in
 * `loadPhase`.
 */
export async function interleavedPhases(
  opts: { warmup: number; total: number; concurrency: number; slices: number },
  first: PhaseSide,
  second: PhaseSide,
): Promise<[PhaseResult, PhaseResult]> {
  await pool(opts.warmup, opts.concurrency, first.call);
  await pool(opts.warmup, opts.concurrency, second.call);
  const sides = [first, second].map((side) => ({
    side,
    ms: 0,
    latencies: [] as number[],
    cpu: side.cpu === undefined ? null : ({} as Record<string, number> | null),
  }));
  const per = Math.ceil(opts.total / opts.slices);
  for (let done = 0; done < opts.total; done += per) {
    const n = Math.min(per, opts.total - done);
    for (const m of sides) {
      const account = m.side.cpu === undefined ? null : startCpuAccount(m.side.cpu);
      const start = performance.now();
      await pool(n, opts.concurrency, async (i) => {
        const t = performance.now();
        await m.side.call(opts.warmup + done + i);
        m.latencies.push(performance.now() - t);
      });
      m.ms += performance.now() - start;
      // account(1): the slice's whole CPU per process, summed here and divided by every call at the end.
      const used = account === null ? null : account(1);
      if (used === null) m.cpu = null;
      else if (m.cpu !== null) for (const [name, us] of Object.entries(used)) m.cpu[name] = (m.cpu[name] ?? 0) + us;
    }
  }
  const [a, b] = sides.map((m) => phaseResult(opts.total, m.ms, m.latencies, m.cpu));
  return [a as PhaseResult, b as PhaseResult];
}

/**
 * Two sides measured in alternating slices of equal *time*: each slice runs one side's calls for `sliceMs` (no call
 * starts after that; those in flight finish), first, second, first, ... A faster side does more calls in its slice;
 * each side's rate is its calls over the sum of its slices' times. Warm-up runs in the same rhythm until both sides
 * have done `warmup` calls, so neither enters the measurement after a long pause of its own. Slices of equal count
 * (`interleavedPhases`) leave the faster side idle most of the time and wake it for short slices: a Node process
 * idle for seconds runs its next second or two measurably slower (bench/README), and equal counts charge that mostly
 * to the faster side. Equal times give both sides the same pauses. `now` is the clock (a test's fake one).
 */
export async function timeSlicedPhases(
  opts: { warmup: number; sliceMs: number; slices: number; concurrency: number; now?: () => number },
  first: PhaseSide,
  second: PhaseSide,
): Promise<[PhaseResult, PhaseResult]> {
  const now = opts.now ?? (() => performance.now());
  const sides = [first, second].map((side) => ({
    side,
    next: 0,
    ms: 0,
    done: 0,
    latencies: [] as number[],
    cpu: side.cpu === undefined ? null : ({} as Record<string, number> | null),
  }));
  // One slice of one side: calls start while the slice lasts; measured slices add their calls, time and CPU.
  const slice = async (m: (typeof sides)[number], record: boolean): Promise<void> => {
    const start = now();
    const end = start + opts.sliceMs;
    let failed: unknown = null;
    const account = record && m.side.cpu !== undefined ? startCpuAccount(m.side.cpu) : null;
    const lane = async (): Promise<void> => {
      while (failed === null && now() < end) {
        const i = m.next++;
        const t = now();
        try {
          await m.side.call(i);
        } catch (err) {
          failed ??= err;
          return;
        }
        if (record) {
          m.latencies.push(now() - t);
          m.done++;
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, lane));
    if (failed !== null) throw failed;
    if (!record) return;
    m.ms += now() - start;
    const used = account === null ? null : account(1);
    if (account !== null && used === null) m.cpu = null;
    else if (used !== null && m.cpu !== null)
      for (const [name, us] of Object.entries(used)) m.cpu[name] = (m.cpu[name] ?? 0) + us;
  };
  while (sides.some((m) => m.next < opts.warmup)) for (const m of sides) await slice(m, false);
  for (let s = 0; s < opts.slices; s++) for (const m of sides) await slice(m, true);
  const [a, b] = sides.map((m) => phaseResult(m.done, m.ms, m.latencies, m.cpu));
  return [a as PhaseResult, b as PhaseResult];
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; the bound turns a hang into a readable failure instead of a stuck bench. */
export async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** A row that could not be measured (a missing database): shown in the table with its reason, never judged. */
export function skippedFigure(name: string, unit: string, reason: string): Figure {
  return {
    name,
    unit,
    value: Number.NaN,
    baseline: Number.NaN,
    ratio: Number.NaN,
    target: null,
    met: null,
    skipped: reason,
  };
}

export function skipped(name: string, title: string, baseline: string, reason: string): BenchResult {
  return { name, title, baseline, figures: [], counts: {}, skipped: reason, durationMs: 0 };
}

export function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpu: cpu[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

const fmt = (n: number): string => {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
};

/** The table `npm run bench` prints (and bench/README.md quotes): one row per figure, skips with their reason. */
export function table(results: readonly BenchResult[]): string {
  const rows: string[][] = [['benchmark', 'figure', 'askgate', 'baseline', 'ratio', 'target', 'met']];
  for (const r of results) {
    if (r.skipped !== null) {
      rows.push([r.name, 'skipped', r.skipped, '', '', '', '']);
      continue;
    }
    for (const f of r.figures) {
      if (f.skipped !== undefined) {
        rows.push([r.name, `${f.name} (${f.unit})`, `skipped: ${f.skipped}`, '', '', '', '']);
        continue;
      }
      const target =
        f.target === null ? '' : `${f.target.on === 'ratio' ? 'ratio' : 'value'} ${f.target.op} ${f.target.limit}`;
      rows.push([
        r.name,
        `${f.name} (${f.unit})`,
        fmt(f.value),
        fmt(f.baseline),
        fmt(f.ratio),
        target,
        f.met === null ? '' : f.met ? 'yes' : 'NO',
      ]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]): string => `| ${row.map((cell, c) => cell.padEnd(widths[c] as number)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

export function writeResults(path: string, results: readonly BenchResult[], tiny: boolean): void {
  const body = { generated_at: new Date().toISOString(), tiny, machine: machine(), results };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
}
