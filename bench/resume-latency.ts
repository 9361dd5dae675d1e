import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { startWorker } from 'askgate-sdk';
import { ROUNDS, figure, medianRound, percentile, roundRatios, until, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

/**
 * 2. Answer-to-resume latency: a run parks on an async confirm ask with `resume: {handler: "bench"}`; the clock
 * starts when the answer's 200 arrives here and stops when the SDK continuation worker (in this process, as a user's
 * program would run it) starts the handler. In between: the claim settles the park, the answering gateway
 * reads the run and enqueues its continuation onto `handler-bench` (one hop; a kill would take the `resume` job), and
 * the SDK worker picks it up and checks the run (one script). Cycles run one at a time, so each latency is unloaded.
 *
 * The baseline is a bare BullMQ round trip on the same Redis: from `queue.add` resolving to the processor starting,
 * with the worker in this process as well.
 *
 * Three rounds of 3,000 cycles after 300 warm-up (one after another, each cycle timing both sides); each round's p50
 * and p99 against its own baseline, and the round with the median p99 ratio is reported. A round's p99 is its 30th
 * slowest cycle: over 300 cycles it was the 3rd, and one scheduler hiccup moved it.
 */

const NAME = 'resume-latency';

export async function resumeLatency(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { warmup: 2, cycles: 5, rounds: 1 } : { warmup: 300, cycles: 3000, rounds: ROUNDS };
  const redis = await startRedis();
  const gateway = await spawnGateway(redis.url);
  const http = new HttpClient(gateway.url, BENCH_TOKEN, 4);
  const handlerStarts = new Map<string, number>();
  const continuations = await startWorker({
    url: gateway.url,
    token: BENCH_TOKEN,
    handlers: {
      bench: (c) => {
        handlerStarts.set(c.run_id, performance.now());
      },
    },
  });
  const baseStarts = new Map<string, number>();
  // BullMQ needs maxRetriesPerRequest null on a worker's connection (blocking commands).
  const baseConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('baseline', { connection: baseConnection, prefix: '{bench}' });
  const worker = new Worker(
    'baseline',
    async (job) => {
      baseStarts.set(job.name, performance.now());
    },
    { connection: baseConnection, prefix: '{bench}', concurrency: 8 },
  );
  await worker.waitUntilReady();
  const gTimes: number[] = [];
  const bTimes: number[] = [];
  let resumed = 0;
  let before200 = 0;
  const expiry = new Date(Date.now() + 3_600_000).toISOString();
  try {
    for (let i = 0; i < s.warmup + s.rounds * s.cycles; i++) {
      const name = `job-${i}`;
      await queue.add(name, { i }, { removeOnComplete: true });
      const added = performance.now();
      await until(() => baseStarts.has(name), 'the baseline job to start', 10_000);

      const runId = `lat-${i}`;
      const parked = await http.expect(201, 'POST', '/api/interactions', {
        question: `Resume run ${i}?`,
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: expiry,
        run: { run_id: runId, resume: { handler: 'bench' } },
      });
      const answer = await http.expect(200, 'POST', `/api/interactions/${parked['id'] as string}/answer`, {
        answer: true,
      });
      const answered = performance.now();
      if (answer['status'] !== 'answered') throw new Error(`answer was ${String(answer['status'])}`);
      await until(() => handlerStarts.has(runId), `run ${runId} to resume`, 10_000);
      resumed++;
      if (i >= s.warmup) {
        bTimes.push((baseStarts.get(name) as number) - added);
        // The resume job is enqueued before the 200 is written, so now and then the handler starts before the 200
        // is read here; that run resumed no later than its answer returned, counted as 0 (and counted apart).
        const latency = (handlerStarts.get(runId) as number) - answered;
        if (latency < 0) before200++;
        gTimes.push(Math.max(0, latency));
      }
    }
  } finally {
    await worker.close();
    await queue.close();
    baseConnection.disconnect();
    await continuations.close();
    http.close();
    await gateway.stop();
    await redis.stop();
  }
  const rounds = Array.from({ length: s.rounds }, (_, r) => {
    const g = gTimes.slice(r * s.cycles, (r + 1) * s.cycles);
    const b = bTimes.slice(r * s.cycles, (r + 1) * s.cycles);
    return {
      value: percentile(g, 99),
      baseline: percentile(b, 99),
      p50: percentile(g, 50),
      baseP50: percentile(b, 50),
    };
  });
  const median = medianRound(rounds);
  return {
    name: NAME,
    title: 'Answer-to-resume latency (answer 200 → handler continuation starts)',
    baseline: 'bare BullMQ add → processor start on the same Redis',
    figures: [
      figure({
        name: 'p50',
        unit: 'ms',
        value: median.p50,
        baseline: median.baseP50,
        target: null,
      }),
      figure({
        name: 'p99',
        unit: 'ms',
        value: median.value,
        baseline: median.baseline,
        target: { op: '<=', limit: 1.5, on: 'ratio' },
        note: `median of ${rounds.length} rounds; p99 ratios ${roundRatios(rounds)}`,
      }),
    ],
    counts: { cycles: gTimes.length, resumed, baseline_jobs: baseStarts.size, resumed_before_200: before200 },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
