import type { Decision, HITLRequest, HITLResponse } from 'langchain';
import type { AskgateClient } from '../client.js';
import { AskgateSdkError } from '../errors.js';
import type { RequestOptions } from '../transport.js';
import {
  type DecidedReview,
  decideReviews,
  type ParkedReviews,
  type PendingReview,
  parkReviews,
  type ReviewContinuation,
  type ReviewParkOptions,
  type ReviewWaitOptions,
  resumedReviews,
} from './review.js';

/**
 * `askgate-sdk/langchain`: LangChain's human-in-the-loop middleware (`humanInTheLoopMiddleware` of `langchain` v1)
 * pauses an agent with an interrupt whose value is a `HITLRequest` (its `actionRequests` and `reviewConfigs`), and
 * resumes with a `HITLResponse` (`decisions`, one per action, in order). Each action request becomes one review ask
 * offering the review config's `allowedDecisions` (approve, edit, reject; LangChain has no respond) with its
 * `argsSchema`. Only `langchain`'s types are imported: the module loads without it.
 */

// The review types and EXPIRED_MESSAGE, the same from every adapter.
export * from './shared-exports.js';

function pendingReviews(request: HITLRequest): PendingReview[] {
  return request.actionRequests.map((action, i) => {
    const config = request.reviewConfigs.find((c) => c.actionName === action.name);
    if (config === undefined)
      throw new AskgateSdkError(`the interrupt has no review config for action ${action.name} (reviewConfigs)`);
    return {
      key: String(i),
      action: {
        name: action.name,
        args: action.args,
        ...(action.description === undefined ? {} : { description: action.description }),
      },
      decisions: config.allowedDecisions,
      ...(config.argsSchema === undefined ? {} : { schema: config.argsSchema }),
    };
  });
}

function decisionOf(review: DecidedReview): Decision {
  const { answer } = review;
  switch (answer.decision) {
    case 'approve':
      return { type: 'approve' };
    case 'edit':
      return { type: 'edit', editedAction: { name: review.action.name, args: answer.args } };
    case 'reject':
      return answer.message === undefined ? { type: 'reject' } : { type: 'reject', message: answer.message };
    default:
      throw new AskgateSdkError(`LangChain has no decision for a review answered ${answer.decision}`);
  }
}

/**
 * Sync mode: asks one review per action request of the interrupt, waits for every answer, and returns the resume
 * value: `agent.invoke(new Command({ resume }), config)`.
 */
export async function reviewInterrupt(
  client: AskgateClient,
  request: HITLRequest,
  options: ReviewWaitOptions = {},
): Promise<HITLResponse> {
  const decided = await decideReviews(client, pendingReviews(request), options);
  return { decisions: decided.map(decisionOf) };
}

/**
 * Async mode: parks `options.run` on one review per action request and returns at once. When every review is
 * answered the run resumes (its handler or webhook); `resumeInterrupt` turns that continuation into the resume value.
 * Keep what the resume needs to find the agent again (its `thread_id`) in `options.run.state`.
 */
export async function parkInterrupt(
  client: AskgateClient,
  request: HITLRequest,
  options: ReviewParkOptions,
): Promise<ParkedReviews> {
  return parkReviews(client, pendingReviews(request), options);
}

/** The resume value of a run parked by `parkInterrupt`, and the `run.state` it was parked with. */
export async function resumeInterrupt(
  client: AskgateClient,
  continuation: ReviewContinuation,
  options: RequestOptions = {},
): Promise<{ resume: HITLResponse; state: unknown }> {
  const resumed = await resumedReviews(client, continuation, options);
  return { resume: { decisions: resumed.reviews.map(decisionOf) }, state: resumed.state };
}
