import type { SettledRun } from '../core/ports.js';
import type { AskResult, RunSpec, StoredInteraction } from '../core/types.js';
import type { ChatThread, Checkpoint } from './checkpoints.js';

/**
 * Parked runs, as the run lifecycle sees them: the types of a run and the `RunStore` port, which holds run records
 * (status, generation, ask slots, attempts). A run's checkpoint (checkpoints.ts) is a port of its own; a store that
 * keeps both in one place (the Redis store: one run hash, src/store/redis/run-store.ts) writes the checkpoint in
 * the park's one step and returns it with every read, so a resume reads the run once.
 */

export type RunStatus = 'parked' | 'ready' | 'dying' | 'resumed' | 'killed';

/** One ask slot of a run. */
export interface RunAsk {
  interactionId: string;
  /** pending while open; else how it ended. */
  status: 'pending' | 'answered' | 'expired' | 'cancelled';
  result: AskResult | null;
}

/** A run as read: its record and its checkpoint. */
export interface RunView extends Checkpoint {
  runId: string;
  status: RunStatus;
  generation: number;
  outstanding: number;
  asks: RunAsk[];
  killedBy: string | null;
  attempts: number;
  parkedAt: string | null;
  completedAt: string | null;
  /**
   * Where the checkpoint of this park is: null when the run store holds it (its `state` and `thread` above are the
   * checkpoint's), else the reference a ParkCheckpoints store keeps it under (the run store then holds no state).
   */
  checkpointRef: string | null;
}

/**
 * How one resume webhook attempt ended: `delivered` (a 2xx), `http_error` (any other status), `refused` (the
 * outbound pin would not connect: `reason` says which address and why), `network_error` (`error` is the code:
 * ECONNREFUSED, ECONNRESET, ENOTFOUND, timeout, …). Never the URL's query, a header, or the signed body.
 */
export interface AttemptOutcome {
  /** When the attempt ended (ISO 8601). */
  at: string;
  /** The park (the run's generation) the attempt delivered. */
  park: number;
  outcome: 'delivered' | 'http_error' | 'refused' | 'network_error';
  status?: number;
  error?: string;
  reason?: string;
}

/** How many attempt outcomes a run keeps: the last ones, enough to see a pattern, bounded in memory. */
export const ATTEMPT_OUTCOMES_KEPT = 10;

export interface ParkInput {
  owner: string;
  run: RunSpec;
  thread: ChatThread | null;
  records: StoredInteraction[];
  /** Ids of records that stay out of the pending list (asks to the caller). */
  unlisted: ReadonlySet<string>;
  /**
   * Set when the checkpoint was kept elsewhere (ParkCheckpoints) under this reference: the run store keeps the
   * reference instead of `run.state`, and never sees the state.
   */
  checkpointRef?: string;
}

/** Where parks live: written in one step with their asks, settled by the answer's claim, completed once. */
export interface RunStore {
  /** Writes every ask and parks the run in one step; returns the park's generation. Throws `conflict` refusals. */
  park(input: ParkInput): Promise<number>;
  /** The run, or null when there is none (or its retention passed). */
  get(runId: string): Promise<RunView | null>;
  /**
   * The run a claim settled ready, as the settling step left it: from `settled.fields` when the store returned them
   * (no second read), else read; null when it is gone.
   */
  settledView(settled: SettledRun): Promise<RunView | null>;
  /** Counts one continuation attempt (shown by GET /api/runs/{id}); refreshes the retention. */
  recordAttempt(runId: string): Promise<void>;
  /** Keeps how one resume webhook attempt ended, with the last ATTEMPT_OUTCOMES_KEPT before it. */
  recordOutcome(runId: string, outcome: AttemptOutcome): Promise<void>;
  /** The kept attempt outcomes of park `generation`, oldest first. */
  outcomes(runId: string, generation: number): Promise<AttemptOutcome[]>;
  /**
   * Records that the continuation of park `generation` completed (with `attempts`, when the attempts were counted
   * elsewhere: a handler's); 1 resumed, 2 killed, 0 nothing to do (done already, another park, no such run).
   */
  complete(runId: string, generation: number, attempts?: number): Promise<number>;
  /** Turns a parked run dying because of `cause`; returns its generation, or null when it was not parked. */
  kill(runId: string, cause: string): Promise<number | null>;
  /** Runs that became due before `beforeMs` and have not completed: what a crash may have left unenqueued. */
  dueRuns(beforeMs: number, max: number): Promise<Array<{ runId: string; generation: number }>>;
  close(): Promise<void>;
}
