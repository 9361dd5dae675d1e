import type { RunSpec } from '../../core/types.js';
import { type ChatThread, type Checkpoint, type ParkCheckpoints, ownedByAnother } from '../../runs/checkpoints.js';
import { type CheckpointRow, type CheckpointTable, RUN_ROW } from './checkpoint-table.js';

/**
 * The Checkpoints port on PostgreSQL (ASKGATE_CHECKPOINT_URL), with one checkpoint per park (ParkCheckpoints): the
 * table and its statements are checkpoint-table.ts. The state is kept as the JSON text it was handed in as and given
 * back parsed from that text, so a resume carries it byte for byte as the Redis checkpointer would.
 */
export class PostgresCheckpoints implements ParkCheckpoints {
  readonly home = 'postgres' as const;

  constructor(readonly table: CheckpointTable) {}

  async load(runId: string): Promise<Checkpoint | null> {
    return checkpointOf(await this.table.latest(runId));
  }

  async save(runId: string, checkpoint: Checkpoint): Promise<void> {
    await this.savePark(runId, RUN_ROW, checkpoint);
  }

  async bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean> {
    return this.table.bindThread(runId, owner, JSON.stringify(thread));
  }

  async savePark(runId: string, ref: string, checkpoint: Checkpoint): Promise<void> {
    const written = await this.table.write(runId, ref, {
      owner: checkpoint.owner,
      kind: checkpoint.kind,
      parentRunId: checkpoint.parentRunId,
      resume: JSON.stringify(checkpoint.resume),
      state: checkpoint.state === null || checkpoint.state === undefined ? null : JSON.stringify(checkpoint.state),
      thread: checkpoint.thread === null ? null : JSON.stringify(checkpoint.thread),
    });
    if (!written) throw ownedByAnother(runId);
  }

  async loadPark(runId: string, ref: string, options: { refresh?: boolean } = {}): Promise<Checkpoint | null> {
    return checkpointOf(await this.table.read(runId, ref, options));
  }

  async dropPark(runId: string, ref: string): Promise<void> {
    await this.table.remove(runId, ref);
  }

  async dropEarlierParks(runId: string, ref: string): Promise<void> {
    await this.table.removeOthers(runId, ref);
  }
}

function checkpointOf(row: CheckpointRow | null): Checkpoint | null {
  if (row === null) return null;
  return {
    owner: row.owner,
    kind: row.kind,
    parentRunId: row.parentRunId,
    resume: row.resume as RunSpec['resume'],
    state: row.state === null ? null : (JSON.parse(row.state) as unknown),
    thread: (row.thread ?? null) as ChatThread | null,
  };
}
