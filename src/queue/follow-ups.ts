import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from '../store/redis/connections.js';
import type { FollowUpPort } from '../core/ports.js';
import type { StoredInteraction } from '../core/types.js';
import { timeMs } from '../store/record-codec.js';
import { type QueueShards, shardKeys } from './queue-shards.js';

/**
 * The follow-ups of a pending question as BullMQ delayed jobs on the `follow-up` queue of the question's shard
 * (queue-shards.ts), consumed by the askgate worker (follow-up-worker.ts), which works every shard's. Every step
 * of a question is scheduled when it is asked, each under an id fixed by the question and the step
 * (`remind-<id>-<n>`, `escalate-<id>-<i>`): a second schedule, from a retried request or another gateway, adds
 * nothing, and two workers cannot both hold one job. The record keeps only the schedule spec (`remind`,
 * `escalate`); the queue holds the per-step state.
 */
export const FOLLOW_UP_QUEUE = 'follow-up';

/** One step: the n-th reminder (1-based), or the escalation step at index i of `escalate`. */
export type FollowUpJobData =
  | { id: string; kind: 'remind'; n: number }
  | { id: string; kind: 'escalate'; step: number };

/** The id of one step's job. Interaction ids are base64url, which BullMQ takes (it refuses `:`). */
export function followUpJobId(data: FollowUpJobData): string {
  return data.kind === 'remind' ? `remind-${data.id}-${data.n}` : `escalate-${data.id}-${data.step}`;
}

/** A step's job and the moment it is due, epoch ms. */
export interface PlannedStep {
  data: FollowUpJobData;
  dueMs: number;
}

/**
 * Every step of `record` that falls before its deadline, in seconds from `created_at`. `secondMs` is how long one
 * scheduled second lasts: 1000, except in tests (ASKGATE_TEST_FOLLOW_UP_SECOND_MS, docs/reminders.md), where the
 * steps keep their order and their rule (every ≥ 60 s) but arrive sooner. The deadline is compared in the ask's own
 * seconds, so the same steps are planned whatever the test setting.
 */
export function planSteps(record: StoredInteraction, secondMs = 1000): PlannedStep[] {
  const createdMs = timeMs(record.created_at, 'created_at');
  const lifeSeconds = (timeMs(record.deadline_at, 'deadline_at') - createdMs) / 1000;
  const steps: PlannedStep[] = [];
  const remind = record.remind;
  if (remind !== undefined) {
    for (let n = 1; n <= remind.max && n * remind.every < lifeSeconds; n++)
      steps.push({ data: { id: record.id, kind: 'remind', n }, dueMs: createdMs + n * remind.every * secondMs });
  }
  record.escalate?.forEach((step, i) => {
    if (step.after < lifeSeconds)
      steps.push({ data: { id: record.id, kind: 'escalate', step: i }, dueMs: createdMs + step.after * secondMs });
  });
  return steps;
}

/**
 * How a step's job is kept: not retried blindly (a send that failed after the platform took it would be sent twice;
 * the worker retries only what the platform refused with a wait), kept a day after it ran so a late second schedule
 * finds its id and adds nothing.
 */
export const FOLLOW_UP_JOB: JobsOptions = {
  attempts: 5,
  backoff: { type: 'askgate' },
  removeOnComplete: { age: 86_400 },
  removeOnFail: { age: 7 * 86_400 },
};

/** The core's FollowUpPort on the process's BullMQ connection: serve and worker processes both schedule and cancel. */
export class FollowUpScheduler implements FollowUpPort {
  /** The `follow-up` queue of each shard, opened on first use (shard 0 first). */
  private readonly queues: Array<Queue<FollowUpJobData> | undefined>;

  constructor(
    private readonly connection: RedisClient,
    private readonly shards: QueueShards,
    private readonly secondMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.queues = shards.keys.map(() => undefined);
  }

  /** The queue of the shard question `id` lives in. */
  private queue(id: string): Queue<FollowUpJobData> {
    const shard = this.shards.ofInteraction(id);
    let queue = this.queues[shard];
    if (queue === undefined) {
      queue = new Queue<FollowUpJobData>(FOLLOW_UP_QUEUE, {
        connection: this.connection,
        prefix: shardKeys(this.shards, shard).queuePrefix,
      });
      this.queues[shard] = queue;
    }
    return queue;
  }

  async schedule(record: StoredInteraction): Promise<void> {
    const now = this.now();
    const steps = planSteps(record, this.secondMs);
    if (steps.length === 0) return;
    await this.queue(record.id).addBulk(
      steps.map(({ data, dueMs }) => ({
        name: data.kind,
        data,
        opts: { ...FOLLOW_UP_JOB, jobId: followUpJobId(data), delay: Math.max(0, dueMs - now) },
      })),
    );
  }

  /**
   * Removes every step still waiting. `remove` leaves a job that a worker holds (it is running now): that step reads
   * the record, finds it resolved and sends nothing.
   */
  async cancel(record: StoredInteraction): Promise<void> {
    // Every step the record could have, whatever the deadline: removing an id that was never added is a no-op.
    const ids: string[] = [];
    for (let n = 1; n <= (record.remind?.max ?? 0); n++) ids.push(followUpJobId({ id: record.id, kind: 'remind', n }));
    record.escalate?.forEach((_s, step) => {
      ids.push(followUpJobId({ id: record.id, kind: 'escalate', step }));
    });
    if (ids.length === 0) return;
    const queue = this.queue(record.id);
    await Promise.all(ids.map((id) => queue.remove(id)));
  }

  /** The state of a step's job ('delayed', 'completed', …, or 'unknown' when there is none): for tests and ops. */
  async stateOf(data: FollowUpJobData): Promise<string> {
    return this.queue(data.id).getJobState(followUpJobId(data));
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((q) => q?.close()));
  }
}
