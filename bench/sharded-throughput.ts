import { startRedisCluster, type RedisClusterHandle } from '../test/helpers/redis-cluster.js';
import { ROUNDS, figure, loadPhase, medianRound, pool, roundRatios, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, type NodeProcess, spawnGateway, startRedis, type RedisHandle } from './processes.js';
import { openSeeder, type Seeder } from './seed.js';

/**
 * Answer throughput on a sharded Redis Cluster: the same authenticated answer door as `answer-throughput`, with the
 * gateway (`npm start`'s process: doors and workers) on a three-master Redis Cluster with `ASKGATE_SHARDS=3`, against
 * the same gateway on one Redis with one shard. Both stores run on this machine, so on a two-core host the cluster's
 * three masters share the cores the single Redis has alone: the ratio measures what sharding and the cluster client
 * cost per answer (the extra routing, the merged lookups, three servers' overhead), not the capacity a cluster of
 * real machines adds. Rounds alternate the two sides; three rounds, the median-ratio round reported.
 */

const NAME = 'sharded-throughput';
const CHOICES = ['alpha', 'beta', 'gamma', 'delta'];
const SHARDS = 3;

interface Side {
  gateway: NodeProcess;
  seeder: Seeder;
  client: HttpClient;
  answered: number;
}

async function openSide(url: string, shards: number, concurrency: number): Promise<Side> {
  const env = { ASKGATE_SHARDS: String(shards) };
  const gateway = await spawnGateway(url, env);
  const seeder = await openSeeder(url, env);
  return { gateway, seeder, client: new HttpClient(gateway.url, BENCH_TOKEN, concurrency), answered: 0 };
}

/** Asks `n` select questions through `side`'s seeder (untimed) and answers them all through its door (timed). */
async function round(side: Side, s: { warmup: number; total: number; concurrency: number }) {
  const n = s.warmup + s.total;
  const ids = new Array<string>(n);
  await pool(n, 32, async (i) => {
    ids[i] = await side.seeder.ask({
      question: `Which one? #${i}`,
      answer_format: 'select',
      choices: CHOICES,
      timeout: 3600,
    });
  });
  return loadPhase(s, async (i) => {
    const res = await side.client.expect(200, 'POST', `/api/interactions/${ids[i] as string}/answer`, {
      answer: 'beta',
    });
    if (res['status'] === 'answered') side.answered++;
  });
}

export async function shardedThroughput(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny
    ? { warmup: 10, total: 60, concurrency: 8, rounds: 1 }
    : { warmup: 2_000, total: 20_000, concurrency: 64, rounds: ROUNDS };
  let redis: RedisHandle | null = null;
  let cluster: RedisClusterHandle | null = null;
  const sides: Side[] = [];
  type Phase = { perSecond: number; p50: number; p99: number };
  const rounds: Array<{ value: number; baseline: number; sharded: Phase; single: Phase }> = [];
  try {
    [redis, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
    const single = await openSide(redis.url, 1, s.concurrency);
    sides.push(single);
    const sharded = await openSide(cluster.url, SHARDS, s.concurrency);
    sides.push(sharded);
    for (let r = 0; r < s.rounds; r++) {
      const one = await round(single, s);
      const many = await round(sharded, s);
      rounds.push({ value: many.perSecond, baseline: one.perSecond, sharded: many, single: one });
    }
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.seeder.close();
      await side.gateway.stop();
    }
    await Promise.all([redis?.stop(), cluster?.stop()]);
  }
  const median = medianRound(rounds);
  const total = s.rounds * (s.warmup + s.total);
  return {
    name: NAME,
    title: `Answer throughput with ASKGATE_SHARDS=${SHARDS} on a three-master Redis Cluster (one host: overhead, not scaling)`,
    baseline: 'the same gateway on one Redis, ASKGATE_SHARDS=1',
    figures: [
      figure({
        name: 'answers/s',
        unit: '1/s',
        value: median.sharded.perSecond,
        baseline: median.single.perSecond,
        target: null,
        note: `median of ${rounds.length} rounds; ratios ${roundRatios(rounds)}; all nodes on this host`,
      }),
      figure({ name: 'p50 latency', unit: 'ms', value: median.sharded.p50, baseline: median.single.p50, target: null }),
      figure({ name: 'p99 latency', unit: 'ms', value: median.sharded.p99, baseline: median.single.p99, target: null }),
    ],
    counts: {
      answers: total,
      answered: sides[1]?.answered ?? 0,
      baseline_answered: sides[0]?.answered ?? 0,
      shards: SHARDS,
      masters: 3,
      concurrency: s.concurrency,
    },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
