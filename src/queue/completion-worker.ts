import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from '../observability/logger.js';
import type { RunStore } from '../park/run-store.js';
import { COMPLETED_QUEUE, unsupportedVersion, type CompletionJob } from './job-protocol.js';
import { type WorkerBasis, workerOptions, type ResumeProducer } from './queues.js';

export interface CompletionWorkerOptions extends WorkerBasis {
  runs: RunStore;
  producer: ResumeProducer;
  logger: Logger;
}

/**
 * The askgate worker's side of handler completions (the `completed` queue of the job protocol, job-protocol.ts): an
 * SDK worker reports each handler's return value there, and this records it.
 *
 * For a chat-reached run (or a conversation turn) the reply is queued first, under its fixed id, then completion is
 * recorded in the run (run-complete, with the attempts the worker counted); a crash between the two reruns this job,
 * whose second reply enqueue is a no-op. A turn belongs to no park (generation 0): it only has its reply. A stale
 * report (its park completed or re-parked since) changes nothing: run-complete checks the generation.
 */
export class CompletionWorker {
  private readonly worker: Worker<CompletionJob>;

  constructor(private readonly options: CompletionWorkerOptions) {
    this.worker = new Worker<CompletionJob>(COMPLETED_QUEUE, (job) => this.process(job), workerOptions(options, 16));
    this.worker.on('failed', (job, err) =>
      options.logger.warn(
        { job: job?.id, attempt: job?.attemptsMade, err: err.message },
        'completion failed; retrying with backoff',
      ),
    );
    this.worker.on('error', (err) => options.logger.warn({ err: err.message }, 'completion worker error'));
  }

  private async process(job: Job<CompletionJob>): Promise<void> {
    const unsupported = unsupportedVersion(job.data, 'this gateway');
    if (unsupported !== null) throw new UnrecoverableError(unsupported);
    const { run_id: runId, generation, thread, type, output, attempt } = job.data;
    if (thread !== null && type !== 'run.killed')
      await this.options.producer.enqueueReply({ runId, generation, thread, output });
    if (generation > 0) await this.options.runs.complete(runId, generation, attempt);
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
