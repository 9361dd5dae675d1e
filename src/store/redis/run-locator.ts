import { shardOfName } from '../../core/shard-ids.js';
import type { Keys } from '../keys.js';
import type { RedisClient } from './connections.js';
import { readShards } from './shard-record.js';

/**
 * Which shard a run lives in. Run ids are chosen by callers (CONTRACT: `run.run_id`, 1..200 characters), so they
 * cannot carry a shard mark as interaction ids do: a new run lives in `shardOfName(run_id, N)`. A run parked while
 * the deployment had fewer shards (`shards:was`, shard-record.ts) stays where it was parked — in
 * `shardOfName(run_id, n)` for that earlier n — so its asks, its settling claim and its resume keep working across
 * the move. The locator checks those places, newest count first, with one EXISTS each (sent together); a deployment
 * that never grew (or started with N shards on a fresh store) has one candidate and asks nothing.
 */
export class RunLocator {
  private earlier: Promise<number[]> | null = null;

  constructor(
    private readonly client: RedisClient,
    /** Every shard's keys, index = shard (the connections' `shardKeys`). */
    private readonly shards: readonly Keys[],
  ) {}

  /** The shard of run `runId`: where it exists, else where a new run of that id goes. */
  async shardOf(runId: string): Promise<number> {
    const candidates = await this.candidates(runId);
    const first = candidates[0] as number;
    if (candidates.length === 1) return first;
    // One EXISTS per candidate, all at once: their keys are in different slots (a Cluster refuses one pipeline
    // across slots), each goes to its own master, and the wait is one round trip.
    const exists = await Promise.all(candidates.map((k) => this.client.exists((this.shards[k] as Keys).run(runId))));
    const found = exists.indexOf(1);
    return found === -1 ? first : (candidates[found] as number);
  }

  /** The current count's shard first, then each earlier count's (newest first), without repeats. */
  private async candidates(runId: string): Promise<number[]> {
    const n = this.shards.length;
    const earlier = await this.earlierCounts();
    const out = [shardOfName(runId, n)];
    for (const count of [...earlier].reverse()) {
      const k = shardOfName(runId, count);
      if (!out.includes(k)) out.push(k);
    }
    return out;
  }

  /** Read once per process: the earlier counts change only when a gateway starts with more shards (a restart). */
  private earlierCounts(): Promise<number[]> {
    this.earlier ??= readShards(this.client, this.shards[0] as Keys).then(
      (record) => record.earlier,
      (error: unknown) => {
        this.earlier = null;
        throw error;
      },
    );
    return this.earlier;
  }
}
