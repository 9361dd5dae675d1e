import {
  ACTIONS_ELEMENTS_MAX,
  BLOCK_ID_MAX,
  BUTTON_TEXT_MAX,
  CONTEXT_TEXT_MAX,
  MESSAGE_BLOCKS_MAX,
  MESSAGE_TEXT_MAX,
  OPTION_TEXT_MAX,
  SECTION_TEXT_MAX,
  SELECT_BUTTONS_MAX,
  SELECT_OPTIONS_MAX,
  checkLimit,
  chars,
  clip,
} from './limits.js';
import {
  type Answerer,
  plainAnswerer,
  outcomeLine as sharedOutcomeLine,
  summarize,
  voteCountLine,
} from '../outcome.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { type Controls, renderHints } from '../../src/core/formats/index.js';
import { REVIEW_HINT } from '../../src/core/review-view.js';

export { summarize };

/**
 * Question → Block Kit message, as plain data (no API calls here). The actions block's `block_id` is
 * `askgate:<interaction id>`, so a tap finds its question with no lookup; each control's `action_id` says what
 * the tap means.
 */

export type Block = Record<string, unknown>;

export interface RenderedMessage {
  /** The notification and fallback text. */
  text: string;
  blocks: Block[];
}

export const BLOCK_PREFIX = 'askgate:';
export const ACTION = {
  yes: 'askgate_yes',
  no: 'askgate_no',
  /** `askgate_choice_<index>` for a choice button. */
  choice: 'askgate_choice_',
  menu: 'askgate_choice_menu',
  openForm: 'askgate_open_form',
} as const;

/** The action_id of a review's buttons (channels/slack/review.ts renders them; respond is a thread reply). */
export const REVIEW_ACTION = {
  approve: 'askgate_approve',
  reject: 'askgate_reject',
  edit: 'askgate_edit',
} as const;

/** The decision of one of our review action_ids, or null. */
export function reviewDecisionOf(actionId: string): keyof typeof REVIEW_ACTION | null {
  const found = Object.entries(REVIEW_ACTION).find(([, id]) => id === actionId);
  return found === undefined ? null : (found[0] as keyof typeof REVIEW_ACTION);
}

/** Any of our action_ids on a question message. */
export const QUESTION_ACTION = /^askgate_(yes|no|choice_\d{1,3}|choice_menu|open_form|approve|reject|edit)$/;

export type TapMeaning =
  | { kind: 'confirm'; value: boolean }
  | { kind: 'select'; index: number }
  | { kind: 'open_form' }
  /** A review's button (channels/slack/review.ts): approve and reject answer, edit opens the pre-filled modal. */
  | { kind: 'review'; decision: 'approve' | 'reject' | 'edit' };

/** What a block_actions tap on a question message means, or null when it is not ours. */
export function readTap(actionId: string, selectedValue: string | null): TapMeaning | null {
  if (actionId === ACTION.yes) return { kind: 'confirm', value: true };
  if (actionId === ACTION.no) return { kind: 'confirm', value: false };
  if (actionId === ACTION.openForm) return { kind: 'open_form' };
  const decision = reviewDecisionOf(actionId);
  if (decision !== null) return { kind: 'review', decision };
  const raw =
    actionId === ACTION.menu
      ? selectedValue
      : actionId.startsWith(ACTION.choice)
        ? actionId.slice(ACTION.choice.length)
        : null;
  return raw !== null && /^\d{1,3}$/.test(raw) ? { kind: 'select', index: Number(raw) } : null;
}

export function interactionIdOfBlock(blockId: string | null): string | null {
  return blockId?.startsWith(BLOCK_PREFIX) ? blockId.slice(BLOCK_PREFIX.length) : null;
}

/** The line under a question, by the controls its format's render hint asks for. */
const HINT: Readonly<Record<Controls, string>> = {
  text: 'Reply in this thread with your answer.',
  buttons: 'Tap Yes or No, or reply "yes" or "no" in this thread.',
  menu: 'Pick a choice, or reply in this thread with its name or number.',
  form: 'Tap “Open form” to answer.',
  external: 'Reply in this thread with your answer.',
  review: REVIEW_HINT,
};

/** Slack mrkdwn treats &, < and > as control characters; a question's text is shown as written. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const plain = (text: string, max: number): { type: 'plain_text'; text: string; emoji: true } => ({
  type: 'plain_text',
  text: clip(text, max),
  emoji: true,
});

function questionSection(question: string): Block {
  // Escaping can lengthen the text, so the clip is of the escaped form (an entity may lose its tail at the cut,
  // which Slack shows as literal text; the full question is in the message's `text`).
  return { type: 'section', text: { type: 'mrkdwn', text: clip(escapeMrkdwn(question), SECTION_TEXT_MAX) } };
}

function context(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(text, CONTEXT_TEXT_MAX) }] };
}

function button(label: string, actionId: string, value: string, style?: 'primary' | 'danger'): Block {
  return {
    type: 'button',
    text: plain(label, BUTTON_TEXT_MAX),
    action_id: actionId,
    value,
    ...(style === undefined ? {} : { style }),
  };
}

/** Buttons for a few short choices; a static_select past SELECT_BUTTONS_MAX or when a label would be cut. */
export function selectControls(interaction: Pick<StoredInteraction, 'id' | 'choices'>): Block[] {
  const choices = interaction.choices ?? [];
  checkLimit('a select question’s choice count', choices.length, SELECT_OPTIONS_MAX, 'SELECT_OPTIONS_MAX');
  const asButtons = choices.length <= SELECT_BUTTONS_MAX && choices.every((c) => chars(c) <= BUTTON_TEXT_MAX);
  if (asButtons) {
    checkLimit('buttons in one actions block', choices.length, ACTIONS_ELEMENTS_MAX, 'ACTIONS_ELEMENTS_MAX');
    return choices.map((c, i) => button(c, `${ACTION.choice}${i}`, String(i)));
  }
  // The option value is the choice's index: a choice may be 200 characters, an option value only 150.
  return [
    {
      type: 'static_select',
      action_id: ACTION.menu,
      placeholder: plain('Choose…', OPTION_TEXT_MAX),
      options: choices.map((c, i) => ({ text: plain(c, OPTION_TEXT_MAX), value: String(i) })),
    },
  ];
}

/** The message a question is delivered as. */
export function renderQuestion(interaction: StoredInteraction): RenderedMessage {
  const blocks: Block[] = [questionSection(interaction.question), context(HINT[renderHints(interaction).controls])];
  const blockId = `${BLOCK_PREFIX}${interaction.id}`;
  checkLimit('the actions block_id length', chars(blockId), BLOCK_ID_MAX, 'BLOCK_ID_MAX');
  // The controls come from the format's render hint (src/core/formats/).
  switch (renderHints(interaction).controls) {
    case 'buttons':
      blocks.push({
        type: 'actions',
        block_id: blockId,
        elements: [button('Yes', ACTION.yes, 'yes', 'primary'), button('No', ACTION.no, 'no')],
      });
      break;
    case 'menu':
      blocks.push({ type: 'actions', block_id: blockId, elements: selectControls(interaction) });
      break;
    case 'form':
      blocks.push({
        type: 'actions',
        block_id: blockId,
        elements: [button('Open form', ACTION.openForm, interaction.id, 'primary')],
      });
      break;
    case 'text':
    case 'external':
    // A review is rendered by channels/slack/review.ts (the plugin calls it).
    case 'review':
      break;
  }
  checkLimit('blocks in one message', blocks.length, MESSAGE_BLOCKS_MAX, 'MESSAGE_BLOCKS_MAX');
  return { text: clip(interaction.question, MESSAGE_TEXT_MAX), blocks };
}

/** Who answered, as Slack shows it: a Slack user's verified id as a mention (Slack renders their current name). */
function slackWho(answerer: Answerer): string {
  if (answerer.platformId !== null && /^[UW][A-Z0-9]+$/.test(answerer.platformId)) return `<@${answerer.platformId}>`;
  return escapeMrkdwn(plainAnswerer(answerer));
}

/** The line that replaces the controls once the question has ended (the hint while it is pending). */
export function outcomeLine(interaction: StoredInteraction): string {
  return (
    sharedOutcomeLine(interaction, { who: slackWho, text: escapeMrkdwn }) ?? HINT[renderHints(interaction).controls]
  );
}

/** A pending quorum question with its live vote count under the question; its buttons stay. */
export function renderVotes(interaction: StoredInteraction): RenderedMessage {
  const message = renderQuestion(interaction);
  const count = voteCountLine(interaction);
  if (count === null) return message;
  return {
    text: clip(`${interaction.question}\n${count}`, MESSAGE_TEXT_MAX),
    blocks: [...message.blocks.slice(0, 1), context(count), ...message.blocks.slice(1)],
  };
}

/** The question as it reads once it has ended: the buttons replaced by the outcome and who answered. */
export function renderOutcome(interaction: StoredInteraction): RenderedMessage {
  const line = outcomeLine(interaction);
  return {
    text: clip(`${interaction.question}\n${line}`, MESSAGE_TEXT_MAX),
    blocks: [questionSection(interaction.question), context(line)],
  };
}
