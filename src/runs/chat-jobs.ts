import type { Identity } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import type { ChatThread } from './checkpoints.js';
import { type ConversationTurnPayload, turnThread } from './continuation.js';
import type { JobBus, ReplyJobData } from './job-bus.js';
import type { OutboundPolicy } from './outbound.js';
import { mapReply, type Route } from './routes.js';
import { parseOutput, postWebhook } from './webhook.js';

export interface ChatJobsDeps {
  routes: readonly Route[];
  jobs: JobBus;
  tokens: ReadonlyMap<string, Identity>;
  logger: Logger;
  /** The outbound pin every webhook POST goes through. */
  outbound: OutboundPolicy;
  /**
   * Posts `text` into `thread` through its channel (and so its pacing); throws when the channel is not configured in
   * this process or cannot post replies. A platform's refusal with a wait is retried then (JobBus, retryAfterMs).
   */
  postReply(thread: ChatThread, text: string): Promise<void>;
}

/**
 * The askgate worker's side of routes: a `turn` job (a chat message for a webhook target: POST it, and queue the
 * target's answer as the turn's reply) and a `reply` job (map a target's output by its route and post it into the
 * originating thread).
 *
 * A reply job's id is fixed per run and park (`replyJobId`), so the output of one continuation is posted once no
 * matter how many times it is enqueued (a rerun continuation, a resume retried after its webhook answered).
 */
export class ChatJobs {
  constructor(private readonly deps: ChatJobsDeps) {}

  private route(name: string): Route | undefined {
    return this.deps.routes.find((r) => r.name === name);
  }

  async turn(payload: ConversationTurnPayload): Promise<void> {
    const route = this.route(payload.route);
    if (route === undefined || !('webhook' in route.target)) {
      this.deps.logger.warn({ route: payload.route }, 'turn for a route no longer configured as a webhook; dropped');
      return;
    }
    const secret = [...this.deps.tokens.values()].find(
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
      this.deps.outbound,
    );
    await this.deps.jobs.enqueueReply({
      runId: payload.run_id,
      generation: 0,
      thread: turnThread(payload),
      output: parseOutput(response.text),
    });
  }

  async reply({ thread, output }: ReplyJobData): Promise<void> {
    // A route renamed or removed since the run parked still gets its reply, under the default mapping.
    const text = mapReply(this.route(thread.route)?.reply ?? { path: 'text' }, output);
    if (text === '') return; // the target chose silence (e.g. it parked, and will answer when it resumes)
    await this.deps.postReply(thread, text);
  }
}
