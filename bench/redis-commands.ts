import { Redis } from 'ioredis';
import { startWorker } from 'askgate-sdk';
import { Keys } from '../src/store/keys.js';
import { figure, sleep, until, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

/**
 * 8. Redis commands per answered question and per park cycle, counted by Redis itself (`INFO commandstats`, reset
 * with `CONFIG RESETSTAT` before each phase): every command a client sends and every command a Lua script runs.
 * Counts do not drift with machine load the way times do, so these figures are budgets, judged on the value.
 *
 * - per answer: sync confirm asks created first (not counted), then answered one at a time through the answer door.
 * - per park cycle: an async confirm ask with `resume: {handler}` is created, answered, its SDK handler (in this
 *   process) runs, and its completion is recorded in the run — everything the gateway and the SDK worker do for one
 *   cycle, both sides' queue work included. Cycles run one at a time.
 *
 * What this benchmark's own connection sends (`INFO`, `CONFIG`, and the `HGET`s with which it waits for the last
 * run to be recorded) is left out. The gateway's and SDK worker's idle queue polling (a blocking pop that times
 * out every few seconds, BullMQ's stalled-job check) is counted: over a phase of a few seconds it adds a few
 * commands in all, under 0.05 per operation at these sizes. The baseline column is the budget itself (ratio 1 is
 * on budget).
 */

const NAME = 'redis-commands';

/** The budgets (commands per operation, rounded counts). Raise one only with a reason in bench/README.md. */
export const COMMAND_BUDGETS = { answer: 10, parkCycle: 125 } as const;

/** Calls per command name from `INFO commandstats`. */
export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m !== null) calls.set(m[1] as string, Number(m[2]));
  }
  return calls;
}

/** Total calls, less the commands the measuring connection itself sends. */
function total(calls: Map<string, number>, own: { hget: number }): number {
  let sum = 0;
  for (const [name, n] of calls) {
    if (name === 'info' || name === 'config' || name.startsWith('config|')) continue;
    sum += name === 'hget' ? n - own.hget : n;
  }
  return sum;
}

function top(calls: Map<string, number>, per: number): string {
  return [...calls]
    .filter(([name]) => name !== 'info' && !name.startsWith('config'))
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${(n / per).toFixed(2)}`)
    .join(', ');
}

export async function redisCommands(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { warmup: 2, answers: 10, cycles: 5 } : { warmup: 20, answers: 500, cycles: 200 };
  const redis = await startRedis();
  const gateway = await spawnGateway(redis.url);
  const http = new HttpClient(gateway.url, BENCH_TOKEN, 4);
  const probe = new Redis(redis.url);
  const keys = new Keys();
  const resumedRuns = new Set<string>();
  const worker = await startWorker({
    url: gateway.url,
    token: BENCH_TOKEN,
    handlers: {
      cmd: (c) => {
        resumedRuns.add(c.run_id);
        return { ok: true };
      },
    },
  });
  const expiry = new Date(Date.now() + 3_600_000).toISOString();
  const own = { hget: 0 };
  /** Waits (counting its own HGETs) until the run's completion is recorded. */
  const recorded = async (runId: string): Promise<void> => {
    for (let i = 0; i < 3000; i++) {
      own.hget++;
      const status = await probe.hget(keys.run(runId), 's');
      if (status === 'resumed') return;
      await sleep(10);
    }
    throw new Error(`run ${runId} was not recorded as resumed in 30 s`);
  };
  const cycle = async (runId: string): Promise<void> => {
    const parked = await http.expect(201, 'POST', '/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: expiry,
      run: { run_id: runId, resume: { handler: 'cmd' } },
    });
    await http.expect(200, 'POST', `/api/interactions/${parked['id'] as string}/answer`, { answer: true });
    await until(() => resumedRuns.has(runId), `run ${runId} to resume`, 30_000);
  };
  let perAnswer = Number.NaN;
  let perCycle = Number.NaN;
  let answerBreakdown = '';
  let cycleBreakdown = '';
  try {
    // Warm-up: both phases once, so connections, scripts and queues exist before counting.
    for (let i = 0; i < s.warmup; i++) await cycle(`warm-${i}`);
    await recorded(`warm-${s.warmup - 1}`);

    const ids: string[] = [];
    for (let i = 0; i < s.answers; i++) {
      const asked = await http.expect(201, 'POST', '/api/interactions', {
        question: `Answer ${i}?`,
        answer_format: 'confirm',
        timeout: 3600,
      });
      ids.push(asked['id'] as string);
    }
    await probe.config('RESETSTAT');
    for (const id of ids) await http.expect(200, 'POST', `/api/interactions/${id}/answer`, { answer: true });
    const answerCalls = await commandStats(probe);
    perAnswer = total(answerCalls, { hget: 0 }) / s.answers;
    answerBreakdown = top(answerCalls, s.answers);

    await probe.config('RESETSTAT');
    own.hget = 0;
    for (let i = 0; i < s.cycles; i++) await cycle(`cycle-${i}`);
    await recorded(`cycle-${s.cycles - 1}`);
    const cycleCalls = await commandStats(probe);
    perCycle = total(cycleCalls, own) / s.cycles;
    cycleBreakdown = top(cycleCalls, s.cycles);
    if (process.env['BENCH_COMMANDS_VERBOSE'] === '1')
      process.stdout.write(`\n  per answer: ${answerBreakdown}\n  per park cycle: ${cycleBreakdown}\n`);
  } finally {
    await worker.close();
    http.close();
    probe.disconnect();
    await gateway.stop();
    await redis.stop();
  }
  return {
    name: NAME,
    title: 'Redis commands per answered question and per park cycle (INFO commandstats)',
    baseline: 'the budget',
    figures: [
      figure({
        name: 'commands per answered question',
        unit: 'count',
        value: perAnswer,
        baseline: COMMAND_BUDGETS.answer,
        target: { op: '<=', limit: COMMAND_BUDGETS.answer, on: 'value' },
        note: answerBreakdown,
      }),
      figure({
        name: 'commands per park cycle',
        unit: 'count',
        value: perCycle,
        baseline: COMMAND_BUDGETS.parkCycle,
        target: { op: '<=', limit: COMMAND_BUDGETS.parkCycle, on: 'value' },
        note: cycleBreakdown,
      }),
    ],
    counts: { answers: s.answers, cycles: s.cycles, resumed: resumedRuns.size - s.warmup },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
