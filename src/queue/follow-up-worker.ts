import { type Job, UnrecoverableError, type Worker } from 'bullmq';
import type { ChannelPlugin } from '../../channels/contract.js';
import { reminderText } from '../../channels/reminder.js';
import type { Store } from '../core/store-port.js';
import { surfacesOf, surfaceView } from '../core/surfaces.js';
import type { StoredInteraction, SurfaceTarget } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import { FOLLOW_UP_QUEUE, type FollowUpJobData } from './follow-ups.js';
import { sendUntilReached } from './unsent-retry.js';
import { type WorkerBasis, workerOptions, workersPerShard } from './queues.js';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** One surface a question was delivered on: its channel and the references its `deliver` returned. */
export interface DeliveredSurface {
  channel: string;
  recipient: string | null;
  delivery: Readonly<Record<string, string>>;
}

/**
 * The surfaces of a question that a reminder replies on: every surface with a delivered message (the asked ones and
 * the escalated ones), less those whose delivery the platform reported failed.
 */
export function deliveredSurfaces(record: StoredInteraction): DeliveredSurface[] {
  return surfacesOf(record).flatMap((s) =>
    s.delivery === null || s.delivery['receipt'] === 'failed'
      ? []
      : [{ channel: s.channel, recipient: s.recipient, delivery: s.delivery }],
  );
}

export interface FollowUpWorkerOptions extends WorkerBasis {
  store: Store;
  /** The channels of this process; a reminder goes out through its channel's `remind` (and so its pacing). */
  channels: readonly ChannelPlugin[];
  logger: Logger;
  /**
   * Adds a surface to a pending question and delivers it there (the service's `deliverToSurface`): recorded first,
   * atomically, so the surface then receives the outcome edit too; `duplicate` when it is a surface already.
   */
  deliverToSurface(
    record: StoredInteraction,
    target: SurfaceTarget,
  ): Promise<{ outcome: 'sent' | 'failed' | 'duplicate' | 'not_pending' | 'not_found'; error?: string }>;
}

/**
 * The askgate worker's side of follow-ups: runs each step when it is due, only while its question is pending (a step
 * that fires after the question resolved — its removal lost the race — does nothing).
 *
 * At most once: a step's job id is fixed, so it is scheduled once; the job is run once (`attempts` is only a
 * ceiling, every failure is final), and a job whose worker died while holding it is failed by BullMQ's stall check
 * instead of run again (`maxStalledCount: 0`). Within the step, a reminder send that never reached the platform (no
 * connection could be made) is tried again for about 15 s (unsent-retry.ts): nobody received it, so it cannot be
 * sent twice. The price is the other side of the guarantee: a worker killed in the middle of a send, or a platform
 * that timed out after taking the message, leaves that one step unsent rather than sent twice.
 */
export class FollowUpWorker {
  /** One per shard: every shard's `follow-up` queue is worked by every askgate worker. */
  private readonly workers: Array<Worker<FollowUpJobData>>;

  constructor(private readonly options: FollowUpWorkerOptions) {
    this.workers = workersPerShard(options, FOLLOW_UP_QUEUE, (job) => this.run(job), {
      ...workerOptions(options, 8),
      maxStalledCount: 0,
    });
    for (const worker of this.workers) {
      worker.on('failed', (job, err) =>
        options.logger.warn({ job: job?.id, err: err.message }, 'follow-up step failed; it is not sent again'),
      );
      worker.on('error', (err) => options.logger.warn({ err: err.message }, 'follow-up worker error'));
    }
  }

  private async run(job: Job<FollowUpJobData>): Promise<void> {
    const data = job.data;
    // A failed read is retried (nothing was sent yet); from here on the step is never retried: a second attempt
    // could repeat a send the platform took (see the class comment).
    const record = await this.options.store.get(data.id);
    if (record === null || record.status !== 'pending') return;
    try {
      await this.step(data, record);
    } catch (err) {
      throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
    }
  }

  private async step(data: FollowUpJobData, record: StoredInteraction): Promise<void> {
    if (data.kind === 'escalate') {
      await this.escalate(record, data.step);
      return;
    }
    const max = record.remind?.max ?? data.n;
    const text = reminderText(record, data.n, max);
    // Each surface on its own: one platform's failure does not keep the reminder from the others.
    for (const surface of deliveredSurfaces(record)) {
      const channel = this.options.channels.find((c) => c.name === surface.channel);
      if (channel === undefined) {
        this.options.logger.warn(
          { interaction: record.id, channel: surface.channel },
          'reminder for a channel this worker does not run; skipped',
        );
        continue;
      }
      let tries: number;
      try {
        // The plugin sees the question as this surface holds it (its channel, recipient and references).
        const view = surfaceView(record, { ...surface, delivery: { ...surface.delivery } });
        // Tried again only while the platform cannot have received it (no connection was made): never twice.
        ({ tries } = await sendUntilReached(
          () => channel.remind(view, surface.delivery, text),
          (err, failed) =>
            this.options.logger.warn(
              { interaction: record.id, channel: surface.channel, tries: failed, err: errorText(err) },
              'reminder did not reach the platform; trying again',
            ),
        ));
      } catch (err) {
        this.options.logger.warn(
          { interaction: record.id, channel: surface.channel, err: errorText(err) },
          'reminder failed on one surface',
        );
        continue;
      }
      // After the send: the trail says what went out (a worker killed between the two leaves the send unrecorded).
      await this.options.store.appendEvent(record.id, {
        type: 'reminded',
        surface: surface.channel,
        detail: { n: data.n, max, recipient: surface.recipient, ...(tries > 1 ? { tries } : {}) },
      });
    }
  }

  /**
   * Escalation step `step`: the question goes to that surface too. Adding the surface is atomic and refused when it is
   * one already, so even a step run twice would deliver once.
   */
  private async escalate(record: StoredInteraction, step: number): Promise<void> {
    const target = record.escalate?.[step];
    if (target === undefined) return;
    const sent = await this.options.deliverToSurface(record, { channel: target.channel, recipient: target.recipient });
    if (sent.outcome !== 'sent' && sent.outcome !== 'failed') return;
    await this.options.store.appendEvent(record.id, {
      type: 'escalated',
      surface: target.channel,
      detail: {
        step,
        recipient: target.recipient,
        outcome: sent.outcome,
        ...(sent.error === undefined ? {} : { error: sent.error }),
      },
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
