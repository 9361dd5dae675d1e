import type { Identity } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import { continuationPayload, type ContinuationPayload } from './continuation.js';
import type { JobBus, ResumeJob } from './job-bus.js';
import { dispatchContinuation } from './dispatch.js';
import type { OutboundPolicy, PostResult } from './outbound.js';
import type { RunStore, RunView } from './run-store.js';
import { type DeliveryResult, parseOutput, postWebhook, WebhookDeliveryError } from './webhook.js';

/** How long a ready run may sit in the ready-runs index before the sweep assumes its enqueue was lost. */
const STRAGGLER_GRACE_MS = 5_000;
const SWEEP_INTERVAL_MS = 1_000;

export interface RunResumerDeps {
  runs: RunStore;
  jobs: JobBus;
  /** Withdraws a pending ask (the interaction service's `withdraw`): a killed run's other asks are cancelled so. */
  withdraw(interactionId: string): Promise<void>;
  tokens: ReadonlyMap<string, Identity>;
  logger: Logger;
  /** The outbound pin every webhook POST goes through. */
  outbound: OutboundPolicy;
  /**
   * Told the continuation's output when a chat-reached run resumed, before completion is recorded (it queues the
   * reply into the thread; a throw retries the continuation, whose webhook-id stays the same).
   */
  onResumed?: (run: RunView, payload: ContinuationPayload, output: unknown) => Promise<void>;
}

/**
 * The askgate worker's side of resumes: one resume job per park that became ready or dying (job-bus.ts), and the
 * recovery sweep that re-enqueues a run whose enqueue a crash lost.
 *
 * A job re-reads the run first and does nothing unless that park is still due (ready or dying): a continuation that
 * completed recorded so atomically (RunStore.complete) before its job completed, so a rerun or a duplicate never
 * runs it again. A dying run is torn down (its other asks withdrawn, its parked parent killed and enqueued) before
 * its resume target is told `run.killed`; every step of the teardown is idempotent, so a rerun after a crash
 * repeats it harmlessly. Handler or webhook is decided by dispatch.ts: a handler target is handed to the SDK workers
 * under the same deterministic id (job-protocol.ts), whose reported completion completion.ts records; a webhook
 * target is POSTed here.
 */
export class RunResumer {
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping = false;

  constructor(private readonly deps: RunResumerDeps) {}

  /** Runs one resume job; a throw retries it with backoff. */
  async resume({ runId, generation, jobId }: ResumeJob): Promise<void> {
    const { runs, jobs } = this.deps;
    const run = await runs.get(runId);
    if (run === null || run.generation !== generation || (run.status !== 'ready' && run.status !== 'dying')) return;
    if (run.status === 'dying') await this.teardown(run);
    const target = await dispatchContinuation(run, jobId, jobs);
    if (target.to === 'handler') return;
    const payload = continuationPayload(run, jobId);
    await runs.recordAttempt(runId);
    const secret = [...this.deps.tokens.values()].find(
      (i) => i.name === run.owner && i.webhookSecret !== null,
    )?.webhookSecret;
    if (secret == null)
      throw new Error(
        `identity "${run.owner}" has no webhook_secret in ASKGATE_TOKENS; the resume webhook cannot be signed.`,
      );
    let response: PostResult;
    try {
      response = await postWebhook(target.url, secret, `msg_${jobId}`, JSON.stringify(payload), this.deps.outbound);
    } catch (error) {
      const result: DeliveryResult =
        error instanceof WebhookDeliveryError ? error.result : { outcome: 'network_error', error: 'unknown' };
      await this.recordOutcome(run, result);
      throw error;
    }
    await this.recordOutcome(run, { outcome: 'delivered', status: response.status });
    // The reply is queued before completion is recorded: a crash between the two reruns the continuation, and the
    // reply's fixed job id keeps the second enqueue a no-op; the other order could lose the reply for good.
    if (run.thread !== null && payload.type === 'run.resumed')
      await this.deps.onResumed?.(run, payload, parseOutput(response.text));
    await runs.complete(runId, generation);
  }

  /**
   * Keeps how an attempt ended for GET /api/runs/{id}. Best effort: a store that cannot take it is logged, and the
   * delivery carries on (or fails) as it would have; the attempt count was recorded before the POST.
   */
  private async recordOutcome(run: RunView, result: DeliveryResult): Promise<void> {
    try {
      await this.deps.runs.recordOutcome(run.runId, { at: new Date().toISOString(), park: run.generation, ...result });
    } catch (err) {
      this.deps.logger.warn(
        { run: run.runId, err: err instanceof Error ? err.message : String(err) },
        'attempt outcome not recorded',
      );
    }
  }

  /** The kill chain: the run's pending asks withdrawn, its parked parent killed and its resume enqueued. */
  private async teardown(run: RunView): Promise<void> {
    for (const ask of run.asks) if (ask.status === 'pending') await this.deps.withdraw(ask.interactionId);
    if (run.parentRunId === null) return;
    const generation = await this.deps.runs.kill(run.parentRunId, `run:${run.runId}`);
    if (generation !== null) await this.deps.jobs.enqueueResume(run.parentRunId, generation);
  }

  /** Starts the recovery sweep: every second, the runs due for a while are enqueued again (their ids dedupe). */
  startRecovery(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Re-enqueues runs that became due but whose enqueue a crash may have lost (the id makes it safe). */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const due of await this.deps.runs.dueRuns(Date.now() - STRAGGLER_GRACE_MS, 100)) {
        await this.deps.jobs.enqueueResume(due.runId, due.generation);
      }
    } catch (err) {
      this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'ready-runs sweep failed');
    } finally {
      this.sweeping = false;
    }
  }

  stopRecovery(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
