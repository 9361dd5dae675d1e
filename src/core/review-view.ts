import { encodeActionCode } from './action-code.js';
import type { ReviewDecision } from './types.js';

/**
 * How every surface shows a review: the words and layout live in forms/review-view.ts (shared with the browser
 * pages, which cannot load the core), re-exported here with what only the core has, the buttons' action codes.
 */
export {
  type ActionView,
  type ActionViewOptions,
  type ArgLine,
  type ReviewOutcomeOptions,
  DECISION_LABELS,
  REVIEW_HINT,
  actionText,
  actionView,
  argLineText,
  argLines,
  cut,
  decisionWords,
  editPrefill,
  reviewAnswerOf,
  reviewOutcomeLine,
} from '../../forms/review-view.js';
import { DECISION_LABELS } from '../../forms/review-view.js';

/** One decision control: its label, and the action code a button carries. */
export interface ReviewButton {
  decision: ReviewDecision;
  label: string;
  /** `<interaction id>:<a|r|e|m>` (core/action-code.ts): approve and reject answer on the tap; edit and respond open. */
  code: string;
}

/** The question's decisions as buttons, in the order offered; approve and reject answer from the tap alone. */
export function reviewButtons(interactionId: string, decisions: readonly ReviewDecision[]): ReviewButton[] {
  return decisions.map((decision) => ({
    decision,
    label: DECISION_LABELS[decision],
    code: encodeActionCode(interactionId, { kind: 'review', decision }),
  }));
}

/** True for the decisions one tap answers (the others need args or words first). */
export function answersOnTap(decision: ReviewDecision): boolean {
  return decision === 'approve' || decision === 'reject';
}
