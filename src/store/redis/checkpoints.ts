import { AskgateError } from '../../core/errors.js';
import { type ChatThread, type Checkpoint, type Checkpoints, ownedByAnother } from '../../runs/checkpoints.js';
import type { Keys } from '../keys.js';
import { checkpointOf, fieldsOf, resumeArg } from './run-fields.js';
import type { ScriptClient } from './scripts/index.js';

/**
 * The Checkpoints port on Redis: a run's checkpoint is the o, k, p, rs, st and th fields of its run hash
 * (run-store.ts documents them), so the park that writes it (park-run) and the read that resumes a run (run-read)
 * each stay one step. Each method here is one script: load runs run-read (a folded park's fields derived), save
 * checkpoint-save, bindThread run-bind. The connection is the process's command connection; `keys` one shard's.
 */
export class RedisCheckpoints implements Checkpoints {
  constructor(
    private readonly client: ScriptClient,
    private readonly keys: Keys,
    /** The checkpoint retention, ms: every write sets the run hash's expiry to it. */
    private readonly retentionMs: number,
  ) {}

  async load(runId: string): Promise<Checkpoint | null> {
    const flat = await redisCall(() => this.client.askgateRunRead(this.keys.run(runId), ...this.foldedArgs(runId)));
    return checkpointOf(fieldsOf(flat));
  }

  async save(runId: string, checkpoint: Checkpoint): Promise<void> {
    const saved = await redisCall(() =>
      this.client.askgateCheckpointSave(
        this.keys.run(runId),
        checkpoint.owner,
        checkpoint.kind,
        checkpoint.parentRunId ?? '',
        resumeArg(checkpoint.resume),
        checkpoint.state === null || checkpoint.state === undefined ? '' : JSON.stringify(checkpoint.state),
        checkpoint.thread === null ? '' : JSON.stringify(checkpoint.thread),
        this.retentionMs,
        ...this.foldedArgs(runId),
      ),
    );
    if (saved !== 1) throw ownedByAnother(runId);
  }

  /**
   * Binds before the target parks (run-bind): the owner is set only if the hash has none, the thread replaced, and
   * park-run keeps a bound thread. A run parked folded is unfolded first.
   */
  async bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean> {
    const bound = await redisCall(() =>
      this.client.askgateRunBind(
        this.keys.run(runId),
        owner,
        JSON.stringify(thread),
        this.retentionMs,
        ...this.foldedArgs(runId),
      ),
    );
    return bound === 1;
  }

  /** What the run scripts need to find (and unfold) a folded park: run id, level key, bucket prefix, record prefix. */
  private foldedArgs(runId: string): string[] {
    return [runId, this.keys.foldedRunsLevel, this.keys.foldedRunsPrefix, this.keys.interactionPrefix];
  }
}

/** Runs a Redis call, turning a connection or command failure into `store_unavailable`. */
export async function redisCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AskgateError) throw error;
    throw new AskgateError(
      'store_unavailable',
      `Redis command failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
