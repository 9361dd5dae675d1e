import { AskgateError, invalid } from '../core/errors.js';
import type { ParkPort, ParkWrite, SettledRun } from '../core/ports.js';
import type { Identity, RunSpec, StoredInteraction } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import type { Checkpoints } from './checkpoints.js';
import { HANDLER_NAME, type JobBus, resumeJobId } from './job-bus.js';
import { dispatchContinuation } from './dispatch.js';
import type { AttemptOutcome, RunStore, RunView } from './run-store.js';
import { freezeBeforeEnqueue } from './test-hold.js';

/**
 * Parks, as the core's `ParkPort`: checks a park as a whole and writes its asks and the run in one step, enqueues
 * the one resume job when a claim settles a run, and guards asks to the caller. The core builds the records and
 * delivers channel asks; the rules every single ask obeys (deadline, retention horizon, run shape) were checked by
 * the core before anything reaches here. Nothing here calls the core.
 */
export class ParkService implements ParkPort {
  constructor(
    private readonly deps: {
      runs: RunStore;
      /** The runs' checkpoints: a parent run's owner is read there. */
      checkpoints: Checkpoints;
      jobs: JobBus;
      logger: Logger;
      /** TEST ONLY (ASKGATE_TEST_HOLD_BEFORE_ENQUEUE): freeze the process between a settling claim and its enqueue. */
      holdBeforeEnqueue?: boolean;
    },
  ) {}

  async write({ identity, run, records }: ParkWrite): Promise<void> {
    await this.checkRun(run, identity, records);
    // Asks to the caller are in the pending list for their deadline but not listed (the inbox never shows them).
    const unlisted = new Set(records.filter((r) => r.to === 'caller').map((r) => r.id));
    await this.deps.runs.park({ owner: identity.name, run, thread: null, records, unlisted });
  }

  private async checkRun(run: RunSpec, identity: Identity, records: StoredInteraction[]): Promise<void> {
    if ('webhook' in run.resume && identity.webhookSecret === null) {
      throw invalid(
        'run.resume.webhook',
        `run.resume.webhook needs a signing secret, and identity "${identity.name}" has none; ` +
          'give its token a "webhook_secret" in ASKGATE_TOKENS, or resume with a handler.',
      );
    }
    if ('handler' in run.resume && !HANDLER_NAME.test(run.resume.handler)) {
      throw invalid(
        'run.resume.handler',
        'run.resume.handler must be 1..100 characters of letters, digits, "_", "." and "-".',
      );
    }
    if (records.some((r) => r.to === 'caller')) {
      const parentId = run.parent_run_id as string; // ask-request.ts requires it for a caller ask
      if ((await this.deps.checkpoints.load(parentId)) === null) {
        throw invalid(
          'run.parent_run_id',
          `run.parent_run_id "${parentId}" names no run askgate knows; ` +
            'the parent run must have parked here (its identity is the one that answers).',
        );
      }
    }
  }

  settled(run: SettledRun): void {
    if (this.deps.holdBeforeEnqueue === true) freezeBeforeEnqueue(run.runId);
    const enqueued =
      run.verdict === 'ready' ? this.resume(run) : this.deps.jobs.enqueueResume(run.runId, run.generation);
    enqueued.catch((err: unknown) => {
      // The run sits in the ready-runs index; the worker's sweep enqueues it under the same id.
      this.deps.logger.warn(
        { run: run.runId, err: err instanceof Error ? err.message : String(err) },
        'resume enqueue failed; the sweep retries it',
      );
    });
  }

  /**
   * A run that became ready: a handler target's continuation goes straight onto `handler-<name>` under the park's
   * deterministic resume id (one hop, as the `resume` job would have handed it on); a webhook target takes the
   * `resume` job. Exactly once holds as on the resume job's path: the handler job's id is the one the resume worker
   * would use (so the sweep's later `resume` job hands on nothing new), the SDK worker never runs a continuation
   * whose completion it reported (job protocol, job-protocol.ts), and run-complete records one completion
   * per park. A kill always takes the `resume` job: its teardown lives in the askgate worker.
   *
   * The run is the one the settling step returned (`RunStore.settledView`: the run as that step left it, so no
   * second read where the store returned it).
   */
  private async resume(settled: SettledRun): Promise<void> {
    const { runs, jobs } = this.deps;
    const run = await runs.settledView(settled);
    // Gone, re-parked or completed already: nothing to hand on (the sweep and the resume job re-check the same way).
    if (run === null || run.generation !== settled.generation || run.status !== 'ready') return;
    const resumeId = resumeJobId(settled.runId, settled.generation);
    if ((await dispatchContinuation(run, resumeId, jobs)).to === 'webhook')
      await jobs.enqueueResume(settled.runId, settled.generation);
  }

  async mayAnswer(stored: StoredInteraction, answeredBy: string): Promise<void> {
    const owner = await this.parentOwner(stored.run_id === null ? null : await this.deps.runs.get(stored.run_id));
    if (owner !== answeredBy) {
      throw new AskgateError(
        'forbidden',
        `interaction ${stored.id} asks the calling run; only its identity (${owner ?? 'unknown'}) may answer it.`,
      );
    }
  }

  /** The identity of the parent of `child` (a run as read), or null when either run is gone. */
  private async parentOwner(child: RunView | null): Promise<string | null> {
    if (child?.parentRunId == null) return null;
    return (await this.deps.checkpoints.load(child.parentRunId))?.owner ?? null;
  }

  /** The run as `GET /api/runs/{id}` shows it, to its owner or the identity of its parent run; else 404. */
  async view(runId: string, identity: Identity): Promise<Record<string, unknown>> {
    const run = await this.deps.runs.get(runId);
    const visible = run !== null && (run.owner === identity.name || (await this.parentOwner(run)) === identity.name);
    if (run === null || !visible)
      throw new AskgateError('not_found', `run ${runId} does not exist (or its retention passed).`);
    return publicRun(run, await this.deps.runs.outcomes(runId, run.generation));
  }
}

function publicRun(run: RunView, outcomes: AttemptOutcome[]): Record<string, unknown> {
  const status = run.status === 'ready' ? 'parked' : run.status === 'dying' ? 'killed' : run.status;
  return {
    run_id: run.runId,
    // ready and dying are the moments between the last answer and the continuation; outside, a run is still
    // parked until its continuation completed, and killed once the kill began.
    status,
    resuming: run.status === 'ready',
    identity: run.owner,
    kind: run.kind,
    parent_run_id: run.parentRunId,
    resume: run.resume,
    state: run.state,
    // A kill cancels every ask of the run still pending (the kill job does it, soon after the kill began): the run
    // shows them as they end, not as the slot last recorded them before the run stopped listening.
    asks: run.asks.map((a) => ({
      interaction_id: a.interactionId,
      status: status === 'killed' && a.status === 'pending' ? 'cancelled' : a.status,
      result: a.result,
    })),
    outstanding: run.outstanding,
    killed_by: run.killedBy,
    resume_attempts: run.attempts,
    // The last few webhook attempts of this park, oldest first: how each ended, never the URL, headers or body.
    resume_attempt_outcomes: outcomes.map(({ park: _park, ...shown }) => shown),
    parks: run.generation,
    // Where this park's checkpoint is kept: a run parked before the checkpointer changed still says where it was.
    checkpoint: run.checkpointRef === null ? 'redis' : 'postgres',
    parked_at: run.parkedAt,
    completed_at: run.completedAt,
  };
}
