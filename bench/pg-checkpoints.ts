import { Redis } from 'ioredis';
import {
  figure,
  medianRound,
  ROUNDS,
  roundRatios,
  skipped,
  type BenchResult,
  type Figure,
  type Size,
  timeSlicedPhases,
} from './harness.js';
import { HttpClient } from './http.js';
import {
  askgateCpu,
  type AskgateRound,
  openAskgate,
  openLangGraph,
  PG_SCHEMA,
  PG_URL,
  SLICE_MS,
  SLICES,
} from './peer-langgraph.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

/**
 * 10. askgate with its checkpoints on PostgreSQL (`ASKGATE_CHECKPOINT_URL`, docs/parks.md) against LangGraph JS with
 * PostgresSaver on the same PostgreSQL server:
 *
 * - the park → answer → resume cycle of benchmark 6 (same cycle, concurrency, rounds and alternating slices), the
 *   gateway writing and reading each run's checkpoint in PostgreSQL instead of Redis;
 * - Redis bytes per parked run with a 100 KB state: `used_memory` growth over N runs parked (async confirm asks, not
 *   answered) through the ask door of a gateway on PostgreSQL checkpoints, against the same N parked on Redis
 *   checkpoints (the baseline: where the state itself is kept). The state never passes through Redis, so its size
 *   must not show there.
 */

const NAME = 'pg-checkpoints';
const TITLE = 'PostgreSQL checkpoints: park + resume vs LangGraph JS, and Redis bytes per parked run';
const BASELINE = 'LangGraph JS with PostgresSaver on the same PostgreSQL; Redis checkpoints for the bytes';
/** askgate's own schema in the bench database, apart from LangGraph's and from any deployment's. */
const CHECKPOINT_SCHEMA = 'askgate_bench_checkpoints';
const STATE_BYTES = 100 * 1024;

async function usedMemory(redis: Redis): Promise<number> {
  const m = /^used_memory:(\d+)/m.exec(await redis.info('memory'));
  if (m === null) throw new Error('INFO memory has no used_memory');
  return Number(m[1]);
}

/** Redis bytes per run parked with a 100 KB state through a fresh gateway and redis-server. */
async function bytesPerParkedRun(runs: number, env: Record<string, string>, tag: string): Promise<number> {
  const redis = await startRedis();
  const gateway = await spawnGateway(redis.url, env);
  const info = new Redis(redis.url);
  const http = new HttpClient(gateway.url, BENCH_TOKEN, 8);
  try {
    const state = { notes: 'x'.repeat(STATE_BYTES) };
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const park = (i: number) =>
      http.expect(201, 'POST', '/api/interactions', {
        question: 'Ship it?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: expiry,
        run: { run_id: `bytes-${tag}-${i}`, resume: { handler: 'peer' }, state },
      });
    for (let i = 0; i < 20; i++) await park(-1 - i); // warm-up: the first keys, scripts and structures
    const before = await usedMemory(info);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < runs) await park(next++);
      }),
    );
    return Math.round(((await usedMemory(info)) - before) / runs);
  } finally {
    http.close();
    info.disconnect();
    await gateway.stop();
    await redis.stop();
  }
}

export async function pgCheckpoints(size: Size): Promise<BenchResult> {
  const started = Date.now();
  // 2,500 warm-up cycles a side, as in peer-langgraph.ts: a fresh gateway's first 2,000 cycles measure V8's compiler.
  const s = size.tiny
    ? { warmup: 2, sliceMs: 100, slices: 2, concurrency: 2, parked: 20 }
    : { warmup: 2_500, sliceMs: SLICE_MS, slices: SLICES, concurrency: 8, parked: 1_000 };
  let postgres: typeof import('@langchain/langgraph-checkpoint-postgres');
  try {
    postgres = await import('@langchain/langgraph-checkpoint-postgres');
  } catch (err) {
    return skipped(NAME, TITLE, BASELINE, `LangGraph's PostgresSaver is not installed: ${String(err)}`);
  }
  const saver = postgres.PostgresSaver.fromConnString(PG_URL, { schema: PG_SCHEMA });
  try {
    await Promise.race([
      saver.setup(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 5 s')), 5_000)),
    ]);
  } catch (err) {
    await saver.end().catch(() => undefined);
    return skipped(NAME, TITLE, BASELINE, `PostgreSQL at PG_URL unavailable: ${String(err).split('\n')[0]}`);
  }
  const env = { ASKGATE_CHECKPOINT_URL: PG_URL, ASKGATE_CHECKPOINT_SCHEMA: CHECKPOINT_SCHEMA };
  const tag = `c${Date.now().toString(36)}`;
  const figures: Figure[] = [];
  let resumed = 0;
  let cycles: [number, number] = [0, 0];
  try {
    const measured: Array<{ value: number; baseline: number; askgate: AskgateRound; cycles: [number, number] }> = [];
    const rounds = size.tiny ? 1 : ROUNDS;
    for (let r = 0; r < rounds; r++) {
      const side = await openAskgate(s.concurrency, env);
      try {
        const [ours, peer] = await timeSlicedPhases(
          { warmup: s.warmup, sliceMs: s.sliceMs, slices: s.slices, concurrency: s.concurrency },
          side,
          await openLangGraph(saver, `pgc-${tag}-${r}`),
        );
        measured.push({
          value: ours.perSecond,
          baseline: peer.perSecond,
          askgate: ours,
          cycles: [ours.done, peer.done],
        });
      } finally {
        resumed += side.resumed();
        await side.close();
      }
    }
    const median = medianRound(measured);
    cycles = median.cycles;
    figures.push(
      figure({
        name: 'cycles/s, PostgreSQL checkpoints, vs LangGraph + Postgres',
        unit: '1/s',
        value: median.value,
        baseline: median.baseline,
        target: { op: '>=', limit: 5, on: 'ratio' },
        note: `median of ${measured.length} rounds; ratios ${roundRatios(measured)}; cycles measured ${median.cycles[0]} / ${median.cycles[1]}${askgateCpu(median.askgate.cpu)}`,
      }),
    );
  } finally {
    await saver.end().catch(() => undefined);
  }
  const onPostgres = await bytesPerParkedRun(s.parked, env, `${tag}-pg`);
  const onRedis = await bytesPerParkedRun(s.parked, {}, `${tag}-redis`);
  figures.push(
    figure({
      name: 'Redis bytes per parked run, 100 KB state, PostgreSQL checkpoints',
      unit: 'bytes',
      value: onPostgres,
      baseline: onRedis,
      target: { op: '<=', limit: 600, on: 'value' },
      note: `baseline: the same runs on Redis checkpoints; ${s.parked} runs parked, not answered`,
    }),
  );
  return {
    name: NAME,
    title: TITLE,
    baseline: BASELINE,
    figures,
    counts: {
      askgate_cycles: cycles[0],
      peer_cycles: cycles[1],
      slice_ms: s.sliceMs,
      slices: s.slices,
      warmup: s.warmup,
      concurrency: s.concurrency,
      parked: s.parked,
      askgate_resumed: resumed,
    },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
