import type { Job, Worker } from 'bullmq';
import { ChannelError, type ChannelPlugin } from '../../channels/contract.js';
import type { Identity } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import { turnThread, type ConversationTurnPayload } from '../runs/continuation.js';
import type { ReplyJobData } from '../runs/job-bus.js';
import { mapReply, type Route } from '../runs/routes.js';
import {
  REPLY_QUEUE,
  TURN_QUEUE,
  type WorkerBasis,
  workerOptions,
  type ResumeProducer,
  workersPerShard,
} from './queues.js';
import type { OutboundPolicy } from '../runs/outbound.js';
import { parseOutput, postWebhook } from '../runs/webhook.js';

export interface ChatWorkerOptions extends WorkerBasis {
  producer: ResumeProducer;
  routes: readonly Route[];
  /** The channels of this process; a reply goes out through its channel's `postReply` (and so its pacing). */
  channels: readonly ChannelPlugin[];
  tokens: ReadonlyMap<string, Identity>;
  logger: Logger;
  /** The outbound pin every webhook POST of this worker goes through. */
  outbound: OutboundPolicy;
}

/**
 * The askgate worker's side of routes: the `turn` queue (a chat message for a webhook target: POST it, and queue
 * the target's answer as the turn's reply) and the `reply` queue (map a target's output by its route and post it
 * into the originating thread).
 *
 * A reply job's id is fixed per run and park (`replyJobId`), so the output of one continuation is posted once no
 * matter how many times it is enqueued (a rerun continuation, a resume retried after its webhook answered). A post
 * that fails is retried with backoff, waiting as long as the platform said when it answered 429.
 */
export class ChatWorker {
  private readonly workers: Worker[];

  constructor(private readonly options: ChatWorkerOptions) {
    // A platform that said when to come back (a 429's retry_after) is retried then, not on the doubling backoff.
    const retryAfterMs = (err: Error | undefined): number | null =>
      err instanceof ChannelError && err.retryAfter !== null ? err.retryAfter * 1000 : null;
    // One of each per shard: every askgate worker works every shard's turn and reply queues.
    this.workers = [
      ...workersPerShard<ConversationTurnPayload>(
        options,
        TURN_QUEUE,
        (job) => this.turn(job),
        workerOptions(options, 16, retryAfterMs),
      ),
      // Replies share one concurrency budget per process and shard; the channel's own pacing spaces them per chat.
      ...workersPerShard<ReplyJobData>(
        options,
        REPLY_QUEUE,
        (job) => this.reply(job),
        workerOptions(options, 8, retryAfterMs),
      ),
    ];
    for (const w of this.workers) {
      w.on('failed', (job, err) =>
        options.logger.warn(
          { job: job?.id, attempt: job?.attemptsMade, err: err.message },
          'chat job failed; retrying with backoff',
        ),
      );
      w.on('error', (err) => options.logger.warn({ err: err.message }, 'chat worker error'));
    }
  }

  private route(name: string): Route | undefined {
    return this.options.routes.find((r) => r.name === name);
  }

  private async turn(job: Job<ConversationTurnPayload>): Promise<void> {
    const payload = job.data;
    const route = this.route(payload.route);
    if (route === undefined || !('webhook' in route.target)) {
      this.options.logger.warn({ route: payload.route }, 'turn for a route no longer configured as a webhook; dropped');
      return;
    }
    const secret = [...this.options.tokens.values()].find(
      (i) => i.name === payload.identity && i.webhookSecret !== null,
    )?.webhookSecret;
    if (secret == null)
      throw new Error(
        `identity "${payload.identity}" has no webhook_secret in ASKGATE_TOKENS; the turn cannot be signed.`,
      );
    const response = await postWebhook(
      route.target.webhook,
      secret,
      `msg_${payload.resume_id}`,
      JSON.stringify(payload),
      this.options.outbound,
    );
    await this.options.producer.enqueueReply({
      runId: payload.run_id,
      generation: 0,
      thread: turnThread(payload),
      output: parseOutput(response.text),
    });
  }

  private async reply(job: Job<ReplyJobData>): Promise<void> {
    const { thread, output } = job.data;
    // A route renamed or removed since the run parked still gets its reply, under the default mapping.
    const text = mapReply(this.route(thread.route)?.reply ?? { path: 'text' }, output);
    if (text === '') return; // the target chose silence (e.g. it parked, and will answer when it resumes)
    const channel = this.options.channels.find((c) => c.name === thread.channel);
    if (channel?.postReply === undefined)
      throw new Error(`channel "${thread.channel}" is not configured in this worker (or cannot post replies).`);
    await channel.postReply(
      thread.replyToMessageId === null
        ? { recipient: thread.recipient }
        : { recipient: thread.recipient, replyToMessageId: thread.replyToMessageId },
      text,
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
