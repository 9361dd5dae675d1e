import type { Job, Worker } from 'bullmq';
import type { InteractionService } from '../core/interaction-service.js';
import type { Identity } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import { continuationPayload, type ContinuationPayload } from '../runs/continuation.js';
import type { RunStore, RunView } from '../runs/run-store.js';
import { handlerJob } from '../runs/job-protocol.js';
import {
  RESUME_QUEUE,
  type ResumeJobData,
  type ResumeProducer,
  type WorkerBasis,
  workerOptions,
  workersPerShard,
} from './queues.js';
import type { OutboundPolicy, PostResult } from '../runs/outbound.js';
import { type DeliveryResult, parseOutput, postWebhook, WebhookDeliveryError } from '../runs/webhook.js';

/** How long a ready run may sit in the ready-runs index before the sweep assumes its enqueue was lost. */
const STRAGGLER_GRACE_MS = 5_000;
const SWEEP_INTERVAL_MS = 1_000;

export interface ResumeWorkerOptions extends WorkerBasis {
  runs: RunStore;
  service: InteractionService;
  producer: ResumeProducer;
  tokens: ReadonlyMap<string, Identity>;
  logger: Logger;
  /** The outbound pin every webhook POST of this worker goes through. */
  outbound: OutboundPolicy;
  /**
   * Told the continuation's output when a chat-reached run resumed, before completion is recorded (it queues the
   * reply into the thread; a throw retries the continuation, whose webhook-id stays the same).
   */
  onResumed?: (run: RunView, payload: ContinuationPayload, output: unknown) => Promise<void>;
}

/**
 * The askgate worker's side of resumes: one BullMQ job per park that became ready or dying.
 *
 * A job re-reads the run first and does nothing unless that park is still due (ready or dying): a continuation that
 * completed recorded so atomically (run-complete) before its job completed, so a rerun or a duplicate never runs it
 * again. A dying run is torn down (its other asks cancelled with their outcome edits, its parked parent killed and
 * enqueued) before its resume target is told `run.killed`; every step of the teardown is idempotent, so a rerun
 * after a crash repeats it harmlessly. A webhook target is POSTed here; a handler target is handed to the SDK
 * workers' queue under the same deterministic id (job-protocol.ts), and the completion they report is recorded by
 * the completions stream consumer (completion-stream.ts).
 */
export class ResumeWorker {
  /** One per shard: the `resume` queue of every shard is worked by every askgate worker. */
  private readonly workers: Array<Worker<ResumeJobData>>;
  private readonly sweeper: NodeJS.Timeout;
  private sweeping = false;

  constructor(private readonly options: ResumeWorkerOptions) {
    this.workers = workersPerShard(options, RESUME_QUEUE, (job) => this.process(job), workerOptions(options, 16));
    for (const worker of this.workers) {
      worker.on('failed', (job, err) => {
        options.logger.warn(
          { job: job?.id, attempt: job?.attemptsMade, err: err.message },
          'continuation failed; retrying with backoff',
        );
      });
      worker.on('error', (err) => options.logger.warn({ err: err.message }, 'resume worker error'));
    }
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private async process(job: Job<ResumeJobData>): Promise<void> {
    const { runs, producer } = this.options;
    const { runId, generation } = job.data;
    const run = await runs.get(runId);
    if (run === null || run.generation !== generation || (run.status !== 'ready' && run.status !== 'dying')) return;
    if (run.status === 'dying') await this.teardown(run);
    const resumeId = job.id as string; // every resume job is added with its deterministic id
    const payload = continuationPayload(run, resumeId);
    if ('handler' in run.resume) {
      await producer.enqueueHandler(run.resume.handler, resumeId, handlerJob(run, resumeId));
      return;
    }
    await runs.recordAttempt(runId);
    const secret = [...this.options.tokens.values()].find(
      (i) => i.name === run.owner && i.webhookSecret !== null,
    )?.webhookSecret;
    if (secret == null)
      throw new Error(
        `identity "${run.owner}" has no webhook_secret in ASKGATE_TOKENS; the resume webhook cannot be signed.`,
      );
    let response: PostResult;
    try {
      response = await postWebhook(
        run.resume.webhook,
        secret,
        `msg_${resumeId}`,
        JSON.stringify(payload),
        this.options.outbound,
      );
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
      await this.options.onResumed?.(run, payload, parseOutput(response.text));
    await runs.complete(runId, generation);
  }

  /**
   * Keeps how an attempt ended for GET /api/runs/{id}. Best effort: a store that cannot take it is logged, and the
   * delivery carries on (or fails) as it would have; the attempt count was recorded before the POST.
   */
  private async recordOutcome(run: RunView, result: DeliveryResult): Promise<void> {
    try {
      await this.options.runs.recordOutcome(run.runId, {
        at: new Date().toISOString(),
        park: run.generation,
        ...result,
      });
    } catch (err) {
      this.options.logger.warn(
        { run: run.runId, err: err instanceof Error ? err.message : String(err) },
        'attempt outcome not recorded',
      );
    }
  }

  private async teardown(run: RunView): Promise<void> {
    for (const ask of run.asks) if (ask.status === 'pending') await this.options.service.withdraw(ask.interactionId);
    if (run.parentRunId === null) return;
    const generation = await this.options.runs.kill(run.parentRunId, `run:${run.runId}`);
    if (generation !== null) await this.options.producer.enqueueResume(run.parentRunId, generation);
  }

  /** Re-enqueues runs that became due but whose enqueue a crash may have lost (the id makes it safe). */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const due of await this.options.runs.dueRuns(Date.now() - STRAGGLER_GRACE_MS, 100)) {
        await this.options.producer.enqueueResume(due.runId, due.generation);
      }
    } catch (err) {
      this.options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'ready-runs sweep failed');
    } finally {
      this.sweeping = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
