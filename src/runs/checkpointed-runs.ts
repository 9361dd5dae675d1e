import type { SettledRun } from '../core/ports.js';
import { AskgateError } from '../core/errors.js';
import { poolRandomBytes } from '../core/random-pool.js';
import type { Logger } from '../observability/logger.js';
import type { ChatThread, Checkpoint, Checkpoints, ParkCheckpoints } from './checkpoints.js';
import type { ClaimedContinuation, ClaimRequest, FailOutcome, HandlerClaims, LeaseResult } from './handler-claims.js';
import type { AttemptOutcome, ParkInput, RunStore, RunView } from './run-store.js';

/**
 * The run store with each park's checkpoint kept in a ParkCheckpoints store (PostgreSQL), in the order that loses
 * nothing: the checkpoint first, under a fresh reference, then the run store's park, which keeps only that
 * reference (never the state). A park the run store refuses drops its checkpoint; a crash between the two leaves
 * one nothing refers to, which its retention removes. Reading a run whose park refers to a checkpoint fills the
 * checkpoint in from there — while the run is due (a resume attempt) the read restarts the checkpoint's retention —
 * and a run parked before the checkpointer changed (no reference) is read as the run store holds it. With no
 * ParkCheckpoints configured, parks are the run store's alone, and a run whose park refers to one cannot be read
 * (`store_unavailable`, naming the variable), rather than resume without its state.
 */
export class CheckpointedRuns implements RunStore {
  constructor(
    private readonly inner: RunStore,
    private readonly parks: ParkCheckpoints | null,
    private readonly logger: Logger,
    private readonly newRef: () => string = () => poolRandomBytes(12).toString('base64url'),
  ) {}

  async park(input: ParkInput): Promise<number> {
    const parks = this.parks;
    if (parks === null) return this.inner.park(input);
    const runId = input.run.run_id;
    const ref = this.newRef();
    await parks.savePark(runId, ref, {
      owner: input.owner,
      kind: input.run.kind,
      parentRunId: input.run.parent_run_id ?? null,
      resume: input.run.resume,
      state: input.run.state ?? null,
      thread: input.thread,
    });
    let generation: number;
    try {
      generation = await this.inner.park({ ...input, run: { ...input.run, state: null }, checkpointRef: ref });
    } catch (error) {
      await parks.dropPark(runId, ref).catch((dropError: unknown) => this.warn(runId, dropError, 'refused park'));
      throw error;
    }
    // The run store took this park, so its earlier parks are done: their checkpoints can go (retention would too).
    // A first park has none but an orphan of a park the run store never took, which retention removes: one
    // statement less on every single-park run.
    if (generation > 1)
      parks.dropEarlierParks(runId, ref).catch((error: unknown) => this.warn(runId, error, 'earlier parks'));
    return generation;
  }

  async get(runId: string): Promise<RunView | null> {
    return this.filled(await this.inner.get(runId));
  }

  /**
   * The run a claim settled, its checkpoint not filled in: what follows needs only what the run store keeps (the
   * resume target, owner, kind, parent, thread and the checkpoint's reference). A handler's job carries the
   * reference and its claim reads the state (restarting the retention: the claim is the resume attempt); a webhook's
   * resume job reads the run whole. One PostgreSQL statement less on every answer that resumes a run.
   */
  settledView(settled: SettledRun): Promise<RunView | null> {
    return this.inner.settledView(settled);
  }

  recordAttempt(runId: string): Promise<void> {
    return this.inner.recordAttempt(runId);
  }

  recordOutcome(runId: string, outcome: AttemptOutcome): Promise<void> {
    return this.inner.recordOutcome(runId, outcome);
  }

  outcomes(runId: string, generation: number): Promise<AttemptOutcome[]> {
    return this.inner.outcomes(runId, generation);
  }

  complete(runId: string, generation: number, attempts?: number): Promise<number> {
    return this.inner.complete(runId, generation, attempts);
  }

  kill(runId: string, cause: string): Promise<number | null> {
    return this.inner.kill(runId, cause);
  }

  dueRuns(beforeMs: number, max: number): Promise<Array<{ runId: string; generation: number }>> {
    return this.inner.dueRuns(beforeMs, max);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * The run with its checkpoint filled in from where its park keeps it; null when that checkpoint's retention passed
   * (the run is past its retention). Throws `store_unavailable` when it cannot be read now: a resume retries.
   */
  private async filled(view: RunView | null): Promise<RunView | null> {
    if (view === null || view.checkpointRef === null) return view;
    if (this.parks === null)
      throw new AskgateError(
        'store_unavailable',
        `run ${view.runId} was parked with its checkpoint in PostgreSQL, and ASKGATE_CHECKPOINT_URL is unset; set it ` +
          'again until the runs parked there have resumed.',
      );
    const due = view.status === 'ready' || view.status === 'dying';
    const checkpoint = await this.parks.loadPark(view.runId, view.checkpointRef, { refresh: due });
    if (checkpoint === null) return null;
    return { ...view, ...checkpoint };
  }

  private warn(runId: string, error: unknown, what: string): void {
    this.logger.warn(
      { run: runId, err: error instanceof Error ? error.message : String(error) },
      `checkpoints of ${what} not dropped; their retention removes them`,
    );
  }
}

/**
 * The Checkpoints port while parks write to a ParkCheckpoints store: threads are bound there (the park takes them
 * from there), and a run is looked up there first, then in the run store's own checkpoints, where the runs parked
 * before the checkpointer changed keep theirs.
 */
export class LayeredCheckpoints implements Checkpoints {
  constructor(
    private readonly primary: ParkCheckpoints,
    private readonly earlier: Checkpoints,
  ) {}

  async load(runId: string): Promise<Checkpoint | null> {
    return (await this.primary.load(runId)) ?? (await this.earlier.load(runId));
  }

  save(runId: string, checkpoint: Checkpoint): Promise<void> {
    return this.primary.save(runId, checkpoint);
  }

  bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean> {
    return this.primary.bindThread(runId, owner, thread);
  }
}

/**
 * The continuation doors' claims with the state of a run whose checkpoint is kept in PostgreSQL filled in: its
 * handler job carried only the reference, so the claim reads the checkpoint (restarting its retention: a claim is a
 * resume attempt) before the worker sees the continuation. While the checkpoint cannot be read the claim fails
 * (`store_unavailable`); the continuation stays leased until its lease lapses and is then offered again.
 */
export class CheckpointClaims implements HandlerClaims {
  constructor(
    private readonly inner: HandlerClaims,
    private readonly parks: ParkCheckpoints | null,
  ) {}

  async claim(request: ClaimRequest): Promise<ClaimedContinuation | null> {
    const claimed = await this.inner.claim(request);
    if (claimed?.checkpointRef === undefined) return claimed;
    const { checkpointRef, ...rest } = claimed;
    const runId = claimed.body.run_id;
    if (this.parks === null)
      throw new AskgateError(
        'store_unavailable',
        `run ${runId} was parked with its checkpoint in PostgreSQL, and ASKGATE_CHECKPOINT_URL is unset; set it ` +
          'again until the runs parked there have resumed.',
      );
    const checkpoint = await this.parks.loadPark(runId, checkpointRef, { refresh: true });
    return { ...rest, body: { ...claimed.body, state: checkpoint?.state ?? null } as ClaimedContinuation['body'] };
  }

  complete(identity: string, resumeId: string, leaseId: string, output: unknown): Promise<LeaseResult<null>> {
    return this.inner.complete(identity, resumeId, leaseId, output);
  }

  fail(
    identity: string,
    resumeId: string,
    leaseId: string,
    reason: string,
    retryBaseMs?: number,
  ): Promise<LeaseResult<FailOutcome>> {
    return this.inner.fail(identity, resumeId, leaseId, reason, retryBaseMs);
  }

  extend(identity: string, resumeId: string, leaseId: string, leaseMs: number): Promise<LeaseResult<number>> {
    return this.inner.extend(identity, resumeId, leaseId, leaseMs);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
