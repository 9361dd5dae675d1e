import { AskgateError } from '../../core/errors.js';
import { shardOfId } from '../../core/shard-ids.js';
import type { SettledRun } from '../../core/ports.js';
import type { ChatThread, Checkpoint, Checkpoints } from '../../runs/checkpoints.js';
import type { AttemptOutcome, ParkInput, RunStore, RunView } from '../../runs/run-store.js';
import { runView } from './run-fields.js';
import type { RedisRunStore } from './run-store.js';
import type { RunLocator } from './run-locator.js';

/**
 * The run store of a deployment spread over shards (docs/scaling.md, "Shards"): one RedisRunStore per shard, their
 * scripts unchanged. A run lives in one shard with every ask it parks (RunLocator says which), so the park, the
 * claim that readies it and its completion each stay one step on one shard; the ready-runs sweep walks them all.
 */
export class ShardedRunStore implements RunStore {
  private sweepStart = 0;
  /** The checkpoints of the same runs, each in its run's shard. */
  readonly checkpoints: Checkpoints;

  constructor(
    /** One run store per shard, index = shard. */
    private readonly shards: readonly RedisRunStore[],
    private readonly locator: RunLocator,
  ) {
    this.checkpoints = new ShardedCheckpoints(
      shards.map((s) => s.checkpoints),
      locator,
    );
  }

  private async of(runId: string): Promise<RedisRunStore> {
    return this.shards[await this.locator.shardOf(runId)] as RedisRunStore;
  }

  /**
   * Parks in the run's shard. The asks were placed there when their ids were minted (Store.newInteractionId); an
   * ask from elsewhere would split the one step, so it is refused (it can only happen when the run moved between
   * the mint and the park, which a retry mends).
   */
  async park(input: ParkInput): Promise<number> {
    const shard = await this.locator.shardOf(input.run.run_id);
    if (input.records.some((r) => shardOfId(r.id, this.shards.length) !== shard))
      throw new AskgateError(
        'conflict',
        `the asks of run ${input.run.run_id} were placed in another shard; ask again.`,
      );
    return (this.shards[shard] as RedisRunStore).park(input);
  }

  async get(runId: string): Promise<RunView | null> {
    return (await this.of(runId)).get(runId);
  }

  /** From the settling step's fields when it returned them (no shard to look up), else read in the run's shard. */
  async settledView(settled: SettledRun): Promise<RunView | null> {
    return settled.fields !== undefined ? runView(settled.runId, settled.fields) : this.get(settled.runId);
  }

  async recordAttempt(runId: string): Promise<void> {
    await (await this.of(runId)).recordAttempt(runId);
  }

  async recordOutcome(runId: string, outcome: AttemptOutcome): Promise<void> {
    await (await this.of(runId)).recordOutcome(runId, outcome);
  }

  async outcomes(runId: string, generation: number): Promise<AttemptOutcome[]> {
    return (await this.of(runId)).outcomes(runId, generation);
  }

  async complete(runId: string, generation: number, attempts?: number): Promise<number> {
    return (await this.of(runId)).complete(runId, generation, attempts);
  }

  async kill(runId: string, cause: string): Promise<number | null> {
    return (await this.of(runId)).kill(runId, cause);
  }

  /** Every shard's due runs, up to `max` in all, starting from the shard after the one that started last. */
  async dueRuns(beforeMs: number, max: number): Promise<Array<{ runId: string; generation: number }>> {
    const n = this.shards.length;
    const start = this.sweepStart;
    this.sweepStart = (start + 1) % n;
    const due: Array<{ runId: string; generation: number }> = [];
    for (let i = 0; i < n && due.length < max; i++) {
      due.push(...(await (this.shards[(start + i) % n] as RedisRunStore).dueRuns(beforeMs, max - due.length)));
    }
    return due;
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close()));
  }
}

/** The checkpoints of a deployment spread over shards: each run's in its run's shard (RunLocator). */
class ShardedCheckpoints implements Checkpoints {
  constructor(
    private readonly shards: readonly Checkpoints[],
    private readonly locator: RunLocator,
  ) {}

  private async of(runId: string): Promise<Checkpoints> {
    return this.shards[await this.locator.shardOf(runId)] as Checkpoints;
  }

  async load(runId: string): Promise<Checkpoint | null> {
    return (await this.of(runId)).load(runId);
  }

  async save(runId: string, checkpoint: Checkpoint): Promise<void> {
    await (await this.of(runId)).save(runId, checkpoint);
  }

  async bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean> {
    return (await this.of(runId)).bindThread(runId, owner, thread);
  }
}
