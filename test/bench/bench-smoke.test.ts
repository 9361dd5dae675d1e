import { describe, expect, it } from 'vitest';
import { answerThroughput } from '../../bench/answer-throughput.js';
import { delivery } from '../../bench/delivery.js';
import type { Bench, BenchResult } from '../../bench/harness.js';
import { memory } from '../../bench/memory.js';
import { resumeLatency } from '../../bench/resume-latency.js';
import { shardedThroughput } from '../../bench/sharded-throughput.js';
import { redisCommands } from '../../bench/redis-commands.js';
import { slackDelivery } from '../../bench/slack-delivery.js';
import { streamFanout } from '../../bench/stream-fanout.js';

/**
 * Keeps every benchmark working: each runs once at its tiny size and must produce well-formed figures whose counts
 * add up. Nothing here looks at speed — timings on a shared two-core machine are not a test's business (the peer
 * comparison with LangGraph runs in `npm run bench` only). Needs dist/ (the pretest build) for the gateway process.
 */

/** A count the bench must report: a missing count is `undefined`, and `undefined === undefined` proves nothing. */
function count(result: BenchResult, key: string): number {
  const value = result.counts[key];
  expect(value, `${result.name} count ${key}`).toBeTypeOf('number');
  return value as number;
}

function wellFormed(result: BenchResult): void {
  expect(result.skipped).toBeNull();
  expect(result.figures.length).toBeGreaterThan(0);
  for (const f of result.figures) {
    expect(f.skipped).toBeUndefined();
    expect(Number.isFinite(f.value), `${result.name} ${f.name} value`).toBe(true);
    expect(Number.isFinite(f.baseline), `${result.name} ${f.name} baseline`).toBe(true);
    expect(Number.isFinite(f.ratio), `${result.name} ${f.name} ratio`).toBe(true);
    // A count figure (429s) may be zero, and so may a resume latency (a run can resume before its answer's 200 is
    // read, counted as 0); every other ratio against a measured baseline is positive.
    if (f.unit === 'count' || result.name === 'resume-latency') expect(f.ratio).toBeGreaterThanOrEqual(0);
    else expect(f.ratio).toBeGreaterThan(0);
    if (f.target !== null) expect(typeof f.met).toBe('boolean');
  }
}

/** Each benchmark, what its counts must show, and how long its tiny run may take. */
const BENCHES: Array<{ name: string; bench: Bench; timeoutMs: number; counts(r: BenchResult): void }> = [
  {
    name: 'answer throughput: every answer claimed its question, on both sides',
    bench: answerThroughput,
    timeoutMs: 60_000,
    counts(r) {
      expect(count(r, 'answers')).toBeGreaterThan(0);
      expect(count(r, 'answered')).toBe(count(r, 'answers'));
      expect(count(r, 'baseline_answered')).toBe(count(r, 'answers'));
    },
  },
  {
    name: 'resume latency: every parked run resumed, every baseline job ran',
    bench: resumeLatency,
    timeoutMs: 60_000,
    counts(r) {
      expect(count(r, 'baseline_jobs')).toBeGreaterThan(0);
      expect(count(r, 'resumed')).toBe(count(r, 'baseline_jobs'));
      expect(count(r, 'cycles')).toBeGreaterThan(0);
    },
  },
  {
    name: 'memory: every ask of every kind is pending',
    bench: memory,
    timeoutMs: 120_000,
    counts(r) {
      // Ten kinds of pending ask, and the audit trail's two rows ('audit: created sealed', 'audit: per event').
      expect(r.figures).toHaveLength(12);
      expect(r.figures.slice(10).map((f) => f.name)).toEqual(['audit: created sealed', 'audit: per event']);
      // The audit rows read every trail back: created plus the appended events, on every ask.
      expect(count(r, 'audit_events_read')).toBe(count(r, 'per_kind') * (count(r, 'audit_events_per_ask') + 1));
      // One pending count per kind (sync/async × four formats, and confirm on Telegram sync/async): without them
      // the loop below would check nothing.
      const pending = Object.entries(r.counts).filter(([key]) => key.endsWith('_pending'));
      expect(pending).toHaveLength(10);
      expect(count(r, 'per_kind')).toBeGreaterThan(0);
      for (const [key, value] of pending) expect(value, key).toBe(count(r, 'per_kind'));
      // The channel kinds measured delivered asks: each sent and indexed by its recipient (one bucketed field each);
      // a Telegram message ref is found through that index (no lookup field).
      for (const mode of ['sync', 'async']) {
        expect(count(r, `${mode}_telegram_sent`), mode).toBe(count(r, 'per_kind'));
        expect(count(r, `${mode}_telegram_recipient_indexes`), mode).toBe(count(r, 'per_kind'));
        expect(count(r, `${mode}_telegram_delivery_refs`), mode).toBe(0);
      }
    },
  },
  {
    name: 'stream fan-out: every subscriber read every event',
    bench: streamFanout,
    timeoutMs: 60_000,
    counts(r) {
      expect(count(r, 'gateway_events_expected')).toBeGreaterThan(0);
      expect(count(r, 'gateway_events_read')).toBe(count(r, 'gateway_events_expected'));
      expect(count(r, 'baseline_events_expected')).toBeGreaterThan(0);
      expect(count(r, 'baseline_events_read')).toBe(count(r, 'baseline_events_expected'));
    },
  },
  {
    name: 'delivery: every question was asked and sent once',
    bench: delivery,
    timeoutMs: 60_000,
    counts(r) {
      // The tiny size, written out (bench/delivery.ts): 60 questions asked, and 60 accepted by the fake.
      expect(count(r, 'questions')).toBe(60);
      expect(count(r, 'asked')).toBe(60);
      expect(count(r, 'sent')).toBe(60);
    },
  },
  {
    name: 'slack delivery: every question was sent once',
    bench: slackDelivery,
    timeoutMs: 60_000,
    counts(r) {
      // The tiny size, written out (bench/slack-delivery.ts): 24 questions, each sent once. The fake counts what it
      // accepted; a bench reporting its own literal (the process count it hard-codes) would prove nothing.
      expect(count(r, 'questions')).toBe(24);
      expect(count(r, 'sent')).toBe(24);
    },
  },
  {
    name: 'redis commands: every answer and every park cycle counted',
    bench: redisCommands,
    timeoutMs: 60_000,
    counts(r) {
      expect(count(r, 'answers')).toBeGreaterThan(0);
      expect(count(r, 'cycles')).toBeGreaterThan(0);
      expect(count(r, 'resumed')).toBe(count(r, 'cycles'));
      for (const f of r.figures) expect(f.value, f.name).toBeGreaterThan(0);
    },
  },
  {
    name: 'sharded throughput: every answer claimed its question, on the three-shard cluster and on one Redis',
    bench: shardedThroughput,
    timeoutMs: 90_000,
    counts(r) {
      expect(count(r, 'shards')).toBe(3);
      expect(count(r, 'answers')).toBeGreaterThan(0);
      expect(count(r, 'answered')).toBe(count(r, 'answers'));
      expect(count(r, 'baseline_answered')).toBe(count(r, 'answers'));
    },
  },
];

describe('benchmarks run at a tiny size and report well-formed figures', () => {
  for (const b of BENCHES) {
    it(
      b.name,
      async () => {
        const r = await b.bench({ tiny: true });
        wellFormed(r);
        b.counts(r);
      },
      b.timeoutMs,
    );
  }
});
