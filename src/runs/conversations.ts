import type { ConversationTurn } from '../core/conversation-turn.js';
import type { Logger } from '../observability/logger.js';
import type { ChatThread, Checkpoints } from './checkpoints.js';
import { type JobBus, turnJobId } from './job-bus.js';
import { turnHandlerJob } from './job-protocol.js';
import type { ConversationTurnPayload } from './continuation.js';
import { matchRoute, type Route } from './routes.js';

/** A chat message that answered no question, as a channel hands it over. */
export type ChatTurn = ConversationTurn;

/**
 * Takes chat messages that answer no question and, when a route matches, hands them to the route's target as a
 * conversation turn. The turn's run id is bound to the thread first, so a target that parks under it is answered
 * late in the same thread; then one job per message carries the turn (a webhook target is POSTed by the askgate
 * worker, a handler target runs on an SDK worker), so a slow or failing target never holds the channel's webhook.
 */
export class ConversationService {
  constructor(
    private readonly deps: { routes: readonly Route[]; checkpoints: Checkpoints; jobs: JobBus; logger: Logger },
  ) {}

  /** The run id of the turn of one chat message: deterministic, so a redelivered message maps to the same run. */
  static runIdOf(turn: Pick<ChatTurn, 'channel' | 'recipient' | 'messageId'>): string {
    return `turn:${turn.channel}:${turn.recipient}:${turn.messageId}`;
  }

  async converse(turn: ChatTurn): Promise<boolean> {
    const route = matchRoute(this.deps.routes, turn.channel, turn.recipient);
    if (route === null) return false;
    const runId = ConversationService.runIdOf(turn);
    const thread: ChatThread = {
      channel: turn.channel,
      recipient: turn.recipient,
      replyToMessageId: turn.threadId ?? turn.messageId,
      route: route.name,
    };
    if (!(await this.deps.checkpoints.bindThread(runId, route.identity, thread))) {
      this.deps.logger.warn({ run: runId, route: route.name }, 'turn run id belongs to another identity; turn dropped');
      return true;
    }
    const jobId = turnJobId(runId);
    const payload: ConversationTurnPayload = {
      type: 'conversation.turn',
      run_id: runId,
      identity: route.identity,
      route: route.name,
      resume_id: jobId,
      turn: {
        channel: turn.channel,
        thread: {
          recipient: turn.recipient,
          message_id: turn.messageId,
          ...(turn.threadId === undefined ? {} : { thread_id: turn.threadId }),
        },
        text: turn.text,
        reply_to: turn.replyTo,
        params: turn.params,
        from: turn.from,
      },
    };
    if ('handler' in route.target)
      await this.deps.jobs.enqueueHandler(route.target.handler, jobId, turnHandlerJob(payload));
    else await this.deps.jobs.enqueueTurn(jobId, payload);
    return true;
  }
}
