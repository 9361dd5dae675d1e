import {
  BLOCK_ID_MAX,
  BUTTON_TEXT_MAX,
  CONTEXT_TEXT_MAX,
  MESSAGE_TEXT_MAX,
  SECTION_TEXT_MAX,
  checkLimit,
  chars,
  clip,
} from './limits.js';
import { editPrefill, reviewButtons } from '../../src/core/review-view.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { decidedAction, fitAction } from '../review-text.js';
import { offeredDecisions } from '../../src/core/formats/index.js';
import { labelList } from '../review-words.js';
import { type Block, BLOCK_PREFIX, escapeMrkdwn, plain, REVIEW_ACTION, type RenderedMessage } from './blocks.js';
import type { FormMetadata } from './modal.js';
import { buildFormView } from './modal.js';

/**
 * A review on Slack: the question, the proposed action in a section of its own (its name in bold, its arguments as
 * `key: value` lines in a code block, within the section's 3000 characters), a hint, and one actions block —
 * Approve (primary) and Reject (danger) answer on the tap, Edit opens a modal pre-filled with the proposed
 * arguments. Respond is a reply in the message's thread.
 */

const STYLE: Readonly<Record<string, 'primary' | 'danger'>> = { approve: 'primary', reject: 'danger' };

/** The hint under a pending review. */
export function reviewHint(question: StoredInteraction): string {
  const offered = offeredDecisions(question);
  const taps = offered.filter((d) => d !== 'respond');
  const tap = taps.length === 0 ? '' : `Tap ${labelList(taps, (l) => `“${l}”`)}.`;
  return `${tap}${offered.includes('respond') ? ' Reply in this thread with words for the agent.' : ''}`.trim();
}

/** The action as a section: escaped, its lines in a code block, within Slack's section limit. */
export function actionSection(question: Pick<StoredInteraction, 'action' | 'result'>): Block {
  const action = decidedAction(question);
  const text =
    action === null
      ? ''
      : fitAction(action, SECTION_TEXT_MAX, (lines) => {
          const [name = '', ...rest] = lines.split('\n');
          const body = rest.length === 0 ? '' : `\n\`\`\`${escapeMrkdwn(rest.join('\n')).replace(/```/g, 'ʼʼʼ')}\`\`\``;
          return `*${escapeMrkdwn(name)}*${body}`;
        });
  return { type: 'section', text: { type: 'mrkdwn', text: text === '' ? ' ' : text } };
}

function section(question: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(escapeMrkdwn(question), SECTION_TEXT_MAX) } };
}

function context(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(text, CONTEXT_TEXT_MAX) }] };
}

/** The message a review is delivered as. */
export function renderReview(question: StoredInteraction): RenderedMessage {
  const blockId = `${BLOCK_PREFIX}${question.id}`;
  checkLimit('the actions block_id length', chars(blockId), BLOCK_ID_MAX, 'BLOCK_ID_MAX');
  const buttons = reviewButtons(question.id, offeredDecisions(question)).flatMap((b) => {
    if (b.decision === 'respond') return [];
    const style = STYLE[b.decision];
    return [
      {
        type: 'button',
        text: plain(b.label, BUTTON_TEXT_MAX),
        action_id: REVIEW_ACTION[b.decision],
        value: b.decision,
        ...(style === undefined ? {} : { style }),
      },
    ];
  });
  const blocks: Block[] = [section(question.question), actionSection(question), context(reviewHint(question))];
  if (buttons.length > 0) blocks.push({ type: 'actions', block_id: blockId, elements: buttons });
  return { text: clip(`${question.question}\n${question.action?.name ?? ''}`, MESSAGE_TEXT_MAX), blocks };
}

/** A decided review: the question, the action as decided, and the outcome line in place of the buttons. */
export function renderReviewOutcome(question: StoredInteraction, line: string): RenderedMessage {
  return {
    text: clip(`${question.question}\n${line}`, MESSAGE_TEXT_MAX),
    blocks: [section(question.question), actionSection(question), context(line)],
  };
}

/**
 * The edit modal: the form of the review's schema, pre-filled with the proposed arguments (`editPrefill` keeps them
 * to the fields the schema names), the action above it; its submission answers `{"decision": "edit", "args"}`.
 * `value` is what is typed so far (a visibleWhen rebuild).
 */
export function editView(question: StoredInteraction, meta: FormMetadata, value?: Record<string, unknown>): Block {
  const initial = editPrefill(question.schema, question.action?.args ?? {});
  return buildFormView(question, meta, value ?? initial, {
    initial,
    intro: String((actionSection(question)['text'] as { text: string }).text),
    title: 'Edit the action',
    submit: 'Submit edits',
  });
}
