import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Redis } from 'ioredis';
import { startWorker } from 'askgate-sdk';
import {
  ROUNDS,
  figure,
  loadPhase,
  medianRound,
  roundRatios,
  skipped,
  skippedFigure,
  timeSlicedPhases,
  type BenchResult,
  type Figure,
  type PhaseSide,
  type Size,
} from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';
import { serverPid } from './process-cpu.js';

/**
 * 6. Park + resume against a peer: the same cycle — a run stops on a question, the answer arrives, the run goes on
 * from where it stopped — through askgate and through LangGraph JS.
 *
 * - askgate: `POST /api/interactions` (async confirm ask, `resume: {handler}`) parks the run; `POST .../answer`
 *   answers it; the cycle ends when the SDK continuation handler (in this process) has run. Gateway as its own
 *   process on its own redis-server, as deployed.
 * - LangGraph: a two-node graph whose first node calls `interrupt()`; `invoke` runs to the interrupt (checkpoint
 *   written), `invoke(new Command({resume}))` resumes it to the end. With its production checkpointer,
 *   @langchain/langgraph-checkpoint-postgres on PG_URL (in its own schema), and with MemorySaver as LangGraph's upper
 *   bound (nothing durable).
 *
 * Both run the same number of cycles at the same concurrency (8: PostgresSaver's pool holds 10 connections). The
 * figure is askgate's cycles/s over LangGraph's. Three rounds, each on a fresh redis-server and gateway, run both
 * sides' cycles in five alternating slices (`interleavedPhases`); the round with the median ratio is reported, and
 * MemorySaver runs once against that round's askgate figure. Runs in `npm run bench` only (not in npm test).
 */

const NAME = 'peer-langgraph';
const TITLE = 'Park + resume vs LangGraph JS (interrupt + Command({resume}))';
const BASELINE = 'LangGraph JS with PostgresSaver (and MemorySaver as its upper bound)';
export const PG_URL = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const PG_SCHEMA = 'askgate_bench';

export type AskgateRound = { perSecond: number; cpu: Record<string, number> | null };

/** A note's CPU split of askgate's reported round, µs per cycle per process. */
export function askgateCpu(cpu: Record<string, number> | null): string {
  if (cpu === null) return '';
  return `; askgate's CPU µs per cycle: ${Object.entries(cpu)
    .map(([name, us]) => `${name} ${us}`)
    .join(', ')}`;
}

/** One side of the comparison, open: its cycle as a harness side (`call`, with the processes whose CPU it spends), and its teardown. */
export interface Side extends PhaseSide {
  close(): Promise<void>;
}

/**
 * A round's measured slices a side, run alternately on the two sides for the same time each (`timeSlicedPhases` in
 * harness.ts), and how long a slice lasts.
 */
export const SLICES = 5;
export const SLICE_MS = 2_000;

/**
 * askgate as deployed: a fresh redis-server, the gateway as its own process (`env` added to its environment, e.g.
 * PostgreSQL checkpoints), the SDK worker in this process.
 */
export async function openAskgate(
  concurrency: number,
  env: Record<string, string> = {},
): Promise<Side & { resumed(): number }> {
  const redis = await startRedis();
  const gateway = await spawnGateway(redis.url, env);
  const info = new Redis(redis.url);
  const redisPid = await serverPid(info).finally(() => info.disconnect());
  const http = new HttpClient(gateway.url, BENCH_TOKEN, concurrency * 2);
  const waiting = new Map<string, () => void>();
  let resumed = 0;
  const worker = await startWorker({
    url: gateway.url,
    token: BENCH_TOKEN,
    concurrency,
    handlers: {
      // The run's continuation: here it only reports back, as LangGraph's second node only returns.
      peer: (c) => {
        resumed++;
        waiting.get(c.run_id)?.();
        return { done: true };
      },
    },
  });
  const expiry = new Date(Date.now() + 3_600_000).toISOString();
  return {
    call: async (i) => {
      const runId = `peer-${i}`;
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`run ${runId} did not resume in 30 s`)), 30_000);
        waiting.set(runId, () => {
          clearTimeout(timer);
          waiting.delete(runId);
          resolve();
        });
      });
      const parked = await http.expect(201, 'POST', '/api/interactions', {
        question: 'Ship it?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: expiry,
        run: { run_id: runId, resume: { handler: 'peer' }, state: { step: 1 } },
      });
      await http.expect(200, 'POST', `/api/interactions/${parked['id'] as string}/answer`, { answer: true });
      await done;
    },
    // The bench process is the load generator and the SDK worker both.
    cpu: { gateway: gateway.pid, redis: redisPid, 'load + SDK worker': 'self' },
    resumed: () => resumed,
    close: async () => {
      await worker.close();
      http.close();
      await gateway.stop();
      await redis.stop();
    },
  };
}

/** The two-node LangGraph graph on `checkpointer`; `tag` keeps its thread ids apart from every other run's. */
export async function openLangGraph(checkpointer: BaseCheckpointSaver, tag: string): Promise<Side> {
  const { Annotation, Command, END, START, StateGraph, interrupt } = await import('@langchain/langgraph');
  const State = Annotation.Root({ answer: Annotation<unknown>(), done: Annotation<boolean>() });
  const graph = new StateGraph(State)
    .addNode('ask', () => ({ answer: interrupt({ question: 'Ship it?' }) as unknown }))
    .addNode('resume', () => ({ done: true }))
    .addEdge(START, 'ask')
    .addEdge('ask', 'resume')
    .addEdge('resume', END)
    .compile({ checkpointer });
  return {
    call: async (i) => {
      const config = { configurable: { thread_id: `${tag}-${i}` } };
      await graph.invoke({ answer: null, done: false }, config);
      const final = await graph.invoke(new Command({ resume: true }), config);
      if (final.done !== true || final.answer !== true)
        throw new Error(`LangGraph thread ${tag}-${i} did not resume to the end`);
    },
    close: async () => undefined,
  };
}

export async function peerLangGraph(size: Size): Promise<BenchResult> {
  const started = Date.now();
  // 2,500 warm-up cycles a side: a freshly started gateway spends about half again as much CPU per cycle over its
  // first 2,000 cycles (V8 has not yet optimized the hot path) as after; each round starts a fresh gateway, while the
  // LangGraph side runs warm in this process from the second round on, so a short warm-up measured the compiler.
  const s = size.tiny ? { warmup: 2, cycles: 10, concurrency: 2 } : { warmup: 2_500, cycles: 1_500, concurrency: 8 };
  let langgraph: typeof import('@langchain/langgraph');
  try {
    langgraph = await import('@langchain/langgraph');
  } catch (err) {
    return skipped(
      NAME,
      TITLE,
      BASELINE,
      `@langchain/langgraph is not installed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); run npm install`,
    );
  }
  const rounds = size.tiny ? 1 : ROUNDS;
  const slices = size.tiny ? 2 : SLICES;
  const sliceMs = size.tiny ? 100 : SLICE_MS;
  const phase = { warmup: s.warmup, total: s.cycles, concurrency: s.concurrency };
  const tag = `t${Date.now().toString(36)}`;
  const figures: Figure[] = [];
  let askgate: AskgateRound | null = null;
  let resumed = 0;
  let cycles: [number, number] = [0, 0];

  let pgNote: string | null = null;
  try {
    const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
    const saver = PostgresSaver.fromConnString(PG_URL, { schema: PG_SCHEMA });
    try {
      await Promise.race([
        saver.setup(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 5 s')), 5_000)),
      ]);
      const measured: Array<{ value: number; baseline: number; askgate: AskgateRound; cycles: [number, number] }> = [];
      for (let r = 0; r < rounds; r++) {
        const side = await openAskgate(s.concurrency);
        try {
          const [ours, peer] = await timeSlicedPhases(
            { warmup: s.warmup, sliceMs, slices, concurrency: s.concurrency },
            side,
            await openLangGraph(saver, `pg-${tag}-${r}`),
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
      askgate = median.askgate;
      cycles = median.cycles;
      figures.push(
        figure({
          name: 'cycles/s vs LangGraph + Postgres',
          unit: '1/s',
          value: median.value,
          baseline: median.baseline,
          target: { op: '>=', limit: 6, on: 'ratio' },
          note: `median of ${measured.length} rounds; ratios ${roundRatios(measured)}; cycles measured ${median.cycles[0]} / ${median.cycles[1]}${askgateCpu(median.askgate.cpu)}`,
        }),
      );
    } finally {
      await saver.end().catch(() => undefined);
    }
  } catch (err) {
    pgNote = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
  }
  if (pgNote !== null) {
    figures.push(
      skippedFigure(
        'cycles/s vs LangGraph + Postgres',
        '1/s',
        `PostgreSQL at PG_URL or @langchain/langgraph-checkpoint-postgres unavailable: ${pgNote}`,
      ),
    );
  }
  if (askgate === null) {
    const side = await openAskgate(s.concurrency);
    try {
      askgate = { perSecond: (await loadPhase(phase, side.call)).perSecond, cpu: null };
    } finally {
      resumed += side.resumed();
      await side.close();
    }
  }
  const memory = (await loadPhase(phase, (await openLangGraph(new langgraph.MemorySaver(), `mem-${tag}`)).call))
    .perSecond;
  figures.push(
    figure({
      name: 'cycles/s vs LangGraph + MemorySaver',
      unit: '1/s',
      value: askgate.perSecond,
      baseline: memory,
      target: null,
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
      slice_ms: sliceMs,
      slices,
      warmup: s.warmup,
      concurrency: s.concurrency,
      rounds,
      askgate_resumed: resumed,
    },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
