import { RedisConnections } from '../src/store/redis/connections.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import type { StoredInteraction } from '../src/core/types.js';
import { makeInteraction } from '../test/store/fixtures.js';

/**
 * `node dist/bench/claim-wait.js <REDIS_URL> [claims]`: what ASKGATE_REDIS_WAIT_REPLICAS=1 costs an answer's claim.
 * Against a Redis (or Redis Cluster) whose master has a replica, it claims `claims` questions one after another,
 * alternating rounds without WAIT and with WAIT 1 (so both see the same machine load), and prints the median and
 * p99 of each, in ms. Not part of `npm run bench`: it needs a replicated Redis (docs/scaling.md shows a run).
 */

/** A pending text question, as the store tests make them (one definition of the record's shape). */
function question(): StoredInteraction {
  return makeInteraction({ question: 'Ship it?', asked_by: 'bench' });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const claims = Number(process.argv[3] ?? 2000);
  if (url === undefined) throw new Error('usage: node dist/bench/claim-wait.js <REDIS_URL> [claims]');
  const stores = await Promise.all(
    [0, 1].map(async (waitReplicas) => {
      const connections = new RedisConnections({ url, prefix: `{claimwait${waitReplicas}}:`, waitReplicas });
      return { waitReplicas, store: await RedisStore.connect({ url, connections, idleTtlSeconds: 60 }), connections };
    }),
  );
  const timings = new Map<number, number[]>([
    [0, []],
    [1, []],
  ]);
  for (let round = 0; round < 10; round++) {
    for (const { waitReplicas, store } of stores) {
      for (let i = 0; i < claims / 10; i++) {
        const record = question();
        await store.create(record);
        const start = process.hrtime.bigint();
        await store.resolve(record.id, {
          status: 'answered',
          result: {
            answer: 'yes',
            reply_to: null,
            params: null,
            answered_by: 'bench',
            answered_at: new Date().toISOString(),
            surface: 'inbox',
          },
          resolvedAt: new Date().toISOString(),
        });
        timings.get(waitReplicas)?.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
  }
  for (const [waitReplicas, list] of timings) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `WAIT ${waitReplicas}: ${sorted.length} claims, median ${quantile(sorted, 0.5).toFixed(3)} ms, ` +
        `p99 ${quantile(sorted, 0.99).toFixed(3)} ms`,
    );
  }
  for (const { store, connections } of stores) {
    await store.close();
    await connections.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
