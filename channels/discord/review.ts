import { BUTTON_STYLE, CONTENT_MAX } from './limits.js';
import { reviewButtons } from '../../src/core/review-view.js';
import type { ReviewDecision, StoredInteraction } from '../../src/core/types.js';
import { decidedAction, reviewText } from '../review-text.js';
import { offeredDecisions } from '../../src/core/formats/index.js';
import { labelList } from '../review-words.js';
import type { ControlId } from './webhook.js';

/**
 * A review on Discord: the question, the proposed action (its name, then its arguments as `key: value` lines in a
 * code block), a hint, within the 2000-character content; one action row of buttons — Approve (green) and Reject
 * (red) answer on the click, Edit opens a modal pre-filled with the proposed arguments, Respond a modal for words
 * back to the agent (Discord delivers no typed replies to an interactions endpoint, so a reply cannot carry them).
 */

const STYLE: Readonly<Record<ReviewDecision, number>> = {
  approve: BUTTON_STYLE.SUCCESS,
  reject: BUTTON_STYLE.DANGER,
  edit: BUTTON_STYLE.PRIMARY,
  respond: BUTTON_STYLE.SECONDARY,
};

/** The hint under a pending review. */
export function reviewHint(question: StoredInteraction): string {
  return `Press ${labelList(offeredDecisions(question), (l) => `“${l}”`)}.`;
}

/** The action in a code block (a value holding ``` cannot close it early). */
function codeBlock(lines: string): string {
  const [name = '', ...rest] = lines.split('\n');
  return rest.length === 0 ? `**${name}**` : `**${name}**\n\`\`\`\n${rest.join('\n').replace(/```/g, 'ʼʼʼ')}\n\`\`\``;
}

/** The review's content: the hint while pending, `footer` (the outcome line) once decided. */
export function reviewContent(question: StoredInteraction, footer: string): string {
  const action = decidedAction(question);
  if (action === null) return footer;
  return reviewText({ question: question.question, action, footer, max: CONTENT_MAX, wrap: codeBlock });
}

/** The review's buttons, in the order its decisions are offered, each with its control id. */
export function reviewControls(
  question: StoredInteraction,
): Array<{ label: string; style: number; control: ControlId }> {
  return reviewButtons(question.id, offeredDecisions(question)).map((b) => ({
    label: b.label,
    style: STYLE[b.decision],
    control: { action: b.decision, interactionId: question.id },
  }));
}
