import { offeredDecisions, type Question } from '../src/core/formats/index.js';
import { DECISION_LABELS } from '../src/core/review-view.js';
import type { ReviewDecision } from '../src/core/types.js';

/**
 * A review's words on a chat channel: the decisions as a list for a hint, and what a person may reply (the reply
 * itself is read by `answerFromText`, channels/replies.ts, the same on every channel: docs/reviews.md).
 */

/** Decisions' labels as a list for a hint: "Approve, Edit or Reject" (each label passed through `quote`). */
export function labelList(decisions: readonly ReviewDecision[], quote: (label: string) => string = (l) => l): string {
  const labels = decisions.map((d) => quote(DECISION_LABELS[d]));
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}

/** What a person may reply to a review, in words, for a hint or a refusal ("Reply APPROVE or REJECT …"). */
export function reviewReplyWords(question: Question): string {
  const offered = offeredDecisions(question);
  const parts: string[] = [];
  if (offered.includes('approve')) parts.push('APPROVE');
  if (offered.includes('reject')) parts.push('REJECT (or REJECT: why)');
  const words = offered.includes('respond') ? ', or any other words for the agent' : '';
  return parts.length === 0 ? 'Reply with your words for the agent.' : `Reply ${parts.join(' or ')}${words}.`;
}
