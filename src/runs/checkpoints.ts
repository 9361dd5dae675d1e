import { AskgateError } from '../core/errors.js';
import type { RunSpec } from '../core/types.js';

/**
 * Checkpoints: what a parked run hands in to be given back when it resumes, kept apart from the run's record (its
 * status, generation, ask slots and attempts: run-store.ts) because a checkpoint may live in another home than the
 * records do. The port is small on purpose: any store that can keep a document per run id for a retention window
 * can implement it, and test/store/checkpoints-contract.test.ts is what every implementation must pass.
 */

/** Where a run reached over chat came from: its late reply goes back there. */
export interface ChatThread {
  channel: string;
  recipient: string;
  replyToMessageId: string | null;
  route: string;
}

/** One park's checkpoint: who parked the run, what it is, where it resumes, the state it handed in, its thread. */
export interface Checkpoint {
  /** The identity that parked the run (its continuation runs under it). */
  owner: string;
  kind: 'tool' | 'agent';
  parentRunId: string | null;
  resume: RunSpec['resume'];
  /** The opaque checkpoint state handed in at park time (null when none), given back unchanged. */
  state: unknown;
  /** The chat thread of a run reached over chat; null when none. */
  thread: ChatThread | null;
}

/** The checkpoints of parked runs, by run id; each kept for the checkpoint retention from its last write. */
export interface Checkpoints {
  /**
   * The checkpoint of the run's latest park, or null when none is kept (never parked, or its retention passed). A
   * run only bound to a thread (`bindThread`) has no checkpoint yet.
   */
  load(runId: string): Promise<Checkpoint | null>;
  /**
   * Keeps `checkpoint` as the run's, replacing an earlier park's. A null `thread` keeps the thread the run was bound
   * to (`bindThread`), if any. Throws AskgateError `conflict` (field run.run_id) when another identity owns the run.
   */
  save(runId: string, checkpoint: Checkpoint): Promise<void>;
  /**
   * Binds a run id to its owner and to the chat thread of a conversation turn, before the turn's target parks it, so
   * the park keeps the thread. The owner is set only when the run has none; false (nothing changed) when another
   * identity owns it. A second bind by the same owner replaces the thread.
   */
  bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean>;
}

/**
 * Checkpoints kept apart from the run records (PostgreSQL: src/store/postgres/checkpoints.ts), one per park: a park
 * writes its checkpoint under a reference of its own before the run store parks the run (which then keeps only the
 * reference), and a park the run store refuses drops exactly its own, so a refused second park of a parked run
 * never touches the checkpoint that run resumes from. A crash between the two leaves a checkpoint nothing refers
 * to, which its retention removes.
 */
export interface ParkCheckpoints extends Checkpoints {
  /** What `GET /api/runs/{id}` names as the checkpoint's home of a run parked here. */
  readonly home: 'postgres';
  /**
   * Keeps the checkpoint of one park under `ref`. A null thread takes the thread bound to the run (`bindThread`).
   * Throws AskgateError `conflict` (field run.run_id) when another identity owns the run, `store_unavailable` when
   * the checkpointer cannot be reached (nothing kept).
   */
  savePark(runId: string, ref: string, checkpoint: Checkpoint): Promise<void>;
  /**
   * The checkpoint of the park `ref`, or null once its retention passed. A resume reads with `refresh`, which
   * restarts the retention: a long chain of retries never outlives the checkpoint it resumes from.
   */
  loadPark(runId: string, ref: string, options?: { refresh?: boolean }): Promise<Checkpoint | null>;
  /** Drops the checkpoint of the park `ref` (a park the run store refused). */
  dropPark(runId: string, ref: string): Promise<void>;
  /** Drops the checkpoints of the run's parks other than `ref`: a new park of a run means the earlier ones are done. */
  dropEarlierParks(runId: string, ref: string): Promise<void>;
}

/** The refusal of a park or a checkpoint write under a run id another identity owns. */
export function ownedByAnother(runId: string): AskgateError {
  return new AskgateError('conflict', `run ${runId} belongs to another identity; run ids are per identity.`, {
    field: 'run.run_id',
  });
}
