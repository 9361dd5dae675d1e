import { join } from 'node:path';
import { answerThroughput } from './answer-throughput.js';
import { delivery } from './delivery.js';
import { slackDelivery } from './slack-delivery.js';
import { machine, table, writeResults, type Bench, type BenchResult } from './harness.js';
import { memory } from './memory.js';
import { peerLangGraph } from './peer-langgraph.js';
import { pgCheckpoints } from './pg-checkpoints.js';
import { ROOT } from './processes.js';
import { redisCommands } from './redis-commands.js';
import { resumeLatency } from './resume-latency.js';
import { shardedThroughput } from './sharded-throughput.js';
import { streamFanout } from './stream-fanout.js';

/**
 * `npm run bench [-- --tiny] [-- --only <name>[,<name>]] [-- --out <file>]`: runs the benchmarks one after another
 * (never in parallel: they would measure each other), prints the table and writes bench/results.json.
 * `--tiny` runs every benchmark at a size that only proves it works, and writes no results unless `--out` is given.
 */

export const BENCHES: ReadonlyArray<{ name: string; run: Bench }> = [
  { name: 'answer-throughput', run: answerThroughput },
  { name: 'resume-latency', run: resumeLatency },
  { name: 'memory', run: memory },
  { name: 'stream-fanout', run: streamFanout },
  { name: 'delivery', run: delivery },
  { name: 'slack-delivery', run: slackDelivery },
  { name: 'peer-langgraph', run: peerLangGraph },
  { name: 'pg-checkpoints', run: pgCheckpoints },
  { name: 'redis-commands', run: redisCommands },
  { name: 'sharded-throughput', run: shardedThroughput },
];

function parseArgs(argv: string[]): { tiny: boolean; only: string[] | null; out: string | null } {
  const args = { tiny: false, only: null as string[] | null, out: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--tiny') args.tiny = true;
    else if (a === '--only') args.only = (argv[++i] ?? '').split(',').filter((x) => x !== '');
    else if (a === '--out') args.out = argv[++i] ?? null;
    else throw new Error(`unknown argument ${a}; use --tiny, --only <name>[,<name>], --out <file>`);
  }
  const unknown = args.only?.find((n) => !BENCHES.some((b) => b.name === n));
  if (unknown !== undefined)
    throw new Error(`no benchmark named ${unknown}; the names are ${BENCHES.map((b) => b.name).join(', ')}`);
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const m = machine();
  process.stdout.write(
    `askgate bench on ${m['cores']} cores (${m['cpu']}), ${m['node']}${args.tiny ? ', tiny sizes' : ''}\n`,
  );
  const results: BenchResult[] = [];
  for (const bench of BENCHES) {
    if (args.only !== null && !args.only.includes(bench.name)) continue;
    process.stdout.write(`- ${bench.name} ... `);
    // The load generator and the fakes run in this process: a benchmark must not pay for the garbage of the one
    // before (the memory benchmark leaves ~600 MB), whose collection could stall the fake Bot API's clock mid-run.
    // `npm run bench` starts Node with --expose-gc; without it, nothing is forced.
    (globalThis as { gc?: () => void }).gc?.();
    const result = await bench.run({ tiny: args.tiny });
    results.push(result);
    process.stdout.write(
      result.skipped !== null ? `skipped: ${result.skipped}\n` : `${(result.durationMs / 1000).toFixed(1)} s\n`,
    );
  }
  process.stdout.write(`\n${table(results)}\n`);
  const out = args.out ?? (args.tiny ? null : join(ROOT, 'bench/results.json'));
  if (out !== null) {
    writeResults(out, results, args.tiny);
    process.stdout.write(`\nwrote ${out}\n`);
  }
  const missed = results.flatMap((r) => r.figures.filter((f) => f.met === false).map((f) => `${r.name}: ${f.name}`));
  if (missed.length > 0) process.stdout.write(`targets missed (see bench/README.md): ${missed.join('; ')}\n`);
}

main()
  .then(() => process.exit(0)) // stray keep-alive sockets or pools must not hold the bench open
  .catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
