import type { ToolApprovalRequestOutput, ToolApprovalResponse, ToolModelMessage, ToolSet } from 'ai';
import type { AskgateClient } from '../client.js';
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
 * `askgate-sdk/ai-sdk`: the AI SDK's tool approvals (`ai` v7). A tool with `needsApproval` (or a `toolApproval`
 * rule answering `user-approval`) stops `generateText`/`streamText` with a `tool-approval-request` part per call;
 * the next call continues once the messages hold a `tool-approval-response` for each (`approved`, `reason`). Each
 * request becomes one review ask offering approve and reject (the AI SDK has no edit and no respond); a rejection's
 * message is the response's `reason`, which the model receives in the denied tool result. Only `ai`'s types are
 * imported: the module loads without it.
 */

// The review types and EXPIRED_MESSAGE, the same from every adapter.
export * from './shared-exports.js';

type ApprovalRequest = ToolApprovalRequestOutput<ToolSet>;

/** The approval requests among a result's parts (`result.content`) that wait for a person (not automatic ones). */
export function approvalRequests(parts: ReadonlyArray<{ readonly type: string }>): ApprovalRequest[] {
  return parts.filter(
    (p): p is ApprovalRequest => p.type === 'tool-approval-request' && (p as ApprovalRequest).isAutomatic !== true,
  );
}

function pendingReviews(parts: ReadonlyArray<{ readonly type: string }>): PendingReview[] {
  return approvalRequests(parts).map((request) => {
    const input = request.toolCall.input as unknown;
    const args =
      input !== null && typeof input === 'object' && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : { input };
    return {
      key: request.approvalId,
      action: {
        name: request.toolCall.toolName,
        args,
        ...(request.reason === undefined ? {} : { description: request.reason }),
      },
      decisions: ['approve', 'reject'],
    };
  });
}

function responseOf(review: DecidedReview): ToolApprovalResponse {
  const { answer } = review;
  const response: ToolApprovalResponse = {
    type: 'tool-approval-response',
    approvalId: review.key,
    approved: answer.decision === 'approve',
  };
  if (answer.decision === 'reject' && answer.message !== undefined) response.reason = answer.message;
  return response;
}

function toolMessage(reviews: readonly DecidedReview[]): ToolModelMessage {
  return { role: 'tool', content: reviews.map(responseOf) };
}

/**
 * Sync mode: asks one review per approval request among `parts` (a result's `content`), waits for every answer,
 * and returns the tool message of approval responses to append after `result.response.messages`.
 */
export async function reviewApprovals(
  client: AskgateClient,
  parts: ReadonlyArray<{ readonly type: string }>,
  options: ReviewWaitOptions = {},
): Promise<ToolModelMessage> {
  return toolMessage(await decideReviews(client, pendingReviews(parts), options));
}

/**
 * Async mode: parks `options.run` on one review per approval request and returns at once. Keep the conversation
 * (the messages so far, with `result.response.messages`) in `options.run.state`: `resumeApprovals` hands it back
 * with the tool message to append.
 */
export async function parkApprovals(
  client: AskgateClient,
  parts: ReadonlyArray<{ readonly type: string }>,
  options: ReviewParkOptions,
): Promise<ParkedReviews> {
  return parkReviews(client, pendingReviews(parts), options);
}

/** The tool message of approval responses of a run parked by `parkApprovals`, and the `run.state` it parked with. */
export async function resumeApprovals(
  client: AskgateClient,
  continuation: ReviewContinuation,
  options: RequestOptions = {},
): Promise<{ message: ToolModelMessage; state: unknown }> {
  const resumed = await resumedReviews(client, continuation, options);
  return { message: toolMessage(resumed.reviews), state: resumed.state };
}
