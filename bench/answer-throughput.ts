import { Redis } from 'ioredis';
import { BASELINE_PREFIX } from './baseline-server.js';
import {
  ROUNDS,
  figure,
  interleavedPhases,
  medianRound,
  pool,
  roundRatios,
  type BenchResult,
  type Size,
} from './harness.js';
import { HttpClient } from './http.js';
import { cpuNote, serverPid } from './process-cpu.js';
import { BENCH_TOKEN, spawnBaseline, spawnGateway, startRedis } from './processes.js';
import { openSeeder } from './seed.js';

/**
 * 1. Answer throughput: concurrent `POST /api/interactions/{id}/answer` (bearer auth, body checks, the answer
 * validated against its select choices, the atomic claim on the Redis store, the event) against the baseline
 * server's bare node:http + one Redis script call per request. Both servers are separate processes on one
 * redis-server; the load comes from this process over keep-alive connections. Each round seeds both sides, then
 * runs their answers in five alternating slices (baseline, askgate, ...; `interleavedPhases`) so a drift of the
 * machine hits both; three rounds, and the round with the median ratio is reported.
 */

const NAME = 'answer-throughput';
const CHOICES = ['alpha', 'beta', 'gamma', 'delta'];

export async function answerThroughput(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny
    ? { warmup: 20, total: 100, concurrency: 8, rounds: 1, slices: 2 }
    : { warmup: 2_000, total: 20_000, concurrency: 64, rounds: ROUNDS, slices: 5 };
  const redis = await startRedis();
  const [gateway, baseline] = await Promise.all([spawnGateway(redis.url), spawnBaseline(redis.url)]);
  const direct = new Redis(redis.url);
  const redisPid = await serverPid(direct);
  const gw = new HttpClient(gateway.url, BENCH_TOKEN, s.concurrency);
  const bl = new HttpClient(baseline.url, null, s.concurrency);
  type Phase = { perSecond: number; p50: number; p99: number; cpu: Record<string, number> | null };
  const rounds: Array<{ value: number; baseline: number; gateway: Phase; base: Phase }> = [];
  let answered = 0;
  let baselineAnswered = 0;
  try {
    for (let round = 0; round < s.rounds; round++) {
      const n = s.warmup + s.total;
      // Baseline questions: a pending marker and a pending-set member each, as the claim script expects.
      const pipe = direct.pipeline();
      for (let i = 0; i < n; i++) {
        pipe.set(`${BASELINE_PREFIX}i:r${round}-${i}`, 'pending');
        pipe.zadd(`${BASELINE_PREFIX}pending`, i, `r${round}-${i}`);
      }
      await pipe.exec();
      // The seeder is an in-process gateway, subscribed to the store's events like any: closed before the timed
      // phases, so this process does not spend the shared cores receiving every answer's event.
      const ids = new Array<string>(n);
      const seeder = await openSeeder(redis.url);
      try {
        await pool(n, 32, async (i) => {
          ids[i] = await seeder.ask({
            question: `Which one? #${i}`,
            answer_format: 'select',
            choices: CHOICES,
            timeout: 3600,
          });
        });
      } finally {
        await seeder.close();
      }
      const [b, g] = await interleavedPhases(
        s,
        {
          cpu: { server: baseline.pid, redis: redisPid, load: 'self' },
          call: async (i) => {
            const res = await bl.expect(200, 'POST', `/answer/r${round}-${i}`, { answer: 'beta' });
            if (res['status'] === 'answered') baselineAnswered++;
          },
        },
        {
          cpu: { server: gateway.pid, redis: redisPid, load: 'self' },
          call: async (i) => {
            const res = await gw.expect(200, 'POST', `/api/interactions/${ids[i] as string}/answer`, {
              answer: 'beta',
            });
            if (res['status'] === 'answered') answered++;
          },
        },
      );
      rounds.push({ value: g.perSecond, baseline: b.perSecond, gateway: g, base: b });
    }
  } finally {
    gw.close();
    bl.close();
    direct.disconnect();
    await Promise.all([gateway.stop(), baseline.stop()]);
    await redis.stop();
  }
  const total = s.rounds * (s.warmup + s.total);
  const median = medianRound(rounds);
  const best = { gateway: median.gateway, baseline: median.base };
  return {
    name: NAME,
    title: 'Answer throughput (authenticated answer door, Redis store)',
    baseline: 'bare node:http + one Redis script call per request',
    figures: [
      figure({
        name: 'answers/s',
        unit: '1/s',
        value: best.gateway.perSecond,
        baseline: best.baseline.perSecond,
        target: { op: '>=', limit: 0.75, on: 'ratio' },
        note: `median of ${rounds.length} rounds; ratios ${roundRatios(rounds)}${cpuNote(best.gateway.cpu, best.baseline.cpu)}`,
      }),
      figure({ name: 'p50 latency', unit: 'ms', value: best.gateway.p50, baseline: best.baseline.p50, target: null }),
      figure({ name: 'p99 latency', unit: 'ms', value: best.gateway.p99, baseline: best.baseline.p99, target: null }),
    ],
    counts: { answers: total, answered, baseline_answered: baselineAnswered, concurrency: s.concurrency },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
