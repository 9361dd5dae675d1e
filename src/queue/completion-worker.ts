import { Queue } from 'bullmq';
import type { Logger } from '../observability/logger.js';
import { COMPLETED_QUEUE, type CompletionJob, unsupportedVersion } from '../runs/job-protocol.js';
import type { RedisClient } from '../store/redis/connections.js';

export interface LegacyCompletionsOptions {
  connection: RedisClient;
  queuePrefix: string;
  /** Records one report (src/runs/completion.ts), as the stream consumer does. */
  record(report: CompletionJob): Promise<void>;
  logger: Logger;
  /** How often the queue is looked at when it held nothing, ms. Default 5000. */
  pollMs?: number;
}

/** Jobs taken per look. */
const BATCH = 64;

/**
 * Version 1 of the job protocol's completion reports: the `completed` BullMQ queue. The gateway adds version-2
 * handler jobs, whose reports go to the completions stream (completion-stream.ts); version-1 reports still come
 * from handler jobs an older gateway added before an upgrade, run by any SDK worker, and from older SDK workers
 * finishing such jobs. This drains them.
 *
 * It is not a BullMQ Worker (which would hold a blocking connection and a blocking pop for a queue that is empty
 * after an upgrade settles): it looks at the waiting and delayed jobs every `pollMs` (at once again after a full
 * batch), records each report as the stream consumer does (idempotent: the reply's fixed id, run-complete's
 * status and generation check) and then removes the job. Two gateways that take the same job both record it; the
 * second changes nothing. A recording that fails leaves the job for the next look.
 */
export class LegacyCompletions {
  private readonly queue: Queue<CompletionJob>;
  private timer: NodeJS.Timeout | null = null;
  private running = true;
  private draining: Promise<void> = Promise.resolve();

  constructor(private readonly options: LegacyCompletionsOptions) {
    this.queue = new Queue<CompletionJob>(COMPLETED_QUEUE, {
      connection: options.connection,
      prefix: options.queuePrefix,
    });
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.draining = this.drain().then(
        (full) => this.schedule(full ? 0 : (this.options.pollMs ?? 5000)),
        (error: unknown) => {
          this.options.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'reading version-1 completion reports failed; looking again',
          );
          this.schedule(this.options.pollMs ?? 5000);
        },
      );
    }, ms);
    this.timer.unref();
  }

  /** One look; true when it found a full batch (more may wait). */
  private async drain(): Promise<boolean> {
    const jobs = await this.queue.getJobs(['waiting', 'delayed', 'prioritized'], 0, BATCH - 1, true);
    for (const job of jobs) {
      if (!this.running) return false;
      const unsupported = unsupportedVersion(job.data, 'this gateway');
      if (unsupported !== null) {
        this.options.logger.warn({ job: job.id, err: unsupported }, 'completion report refused; removed unread');
      } else {
        try {
          await this.options.record(job.data);
        } catch (error) {
          this.options.logger.warn(
            { job: job.id, err: error instanceof Error ? error.message : String(error) },
            'recording a version-1 completion failed; it is looked at again',
          );
          continue;
        }
      }
      await job.remove();
    }
    return jobs.length >= BATCH;
  }

  async close(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.draining.catch(() => undefined);
    await this.queue.close();
  }
}
