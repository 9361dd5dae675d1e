import {
  BUTTON_TITLE_MAX,
  FLOW_CTA_MAX,
  INTERACTIVE_BODY_MAX,
  LIST_BUTTON_MAX,
  LIST_ROWS_MAX,
  REPLY_BUTTONS_MAX,
  REPLY_ID_MAX,
  ROW_DESCRIPTION_MAX,
  ROW_TITLE_MAX,
  TEXT_BODY_MAX,
  RenderLimitError,
} from './limits.js';
import { encodeActionCode, type ActionPick } from '../../src/core/action-code.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { clip } from '../outcome.js';
import { renderHints } from '../../src/core/formats/index.js';

/**
 * Question → Cloud API message object, as data (no API calls here). Every button and list row carries an action code
 * as its id (`<interaction id>:<pick>`, src/core/action-code.ts), so a tap finds its question and its whole choice
 * (by index) whatever its clipped title.
 */

export type Json = Record<string, unknown>;

const HINT = {
  text: 'Reply to this message with your answer.',
  confirm: 'Tap Yes or No, or reply "yes" or "no".',
  selectButtons: 'Tap a choice.',
  selectList: 'Tap "Choose" and pick one.',
  selectNumbered: 'Reply to this message with the number or the name of your choice.',
  form: 'Tap the button to fill in the form.',
  external: 'Open the link to answer.',
} as const;

const length = (s: string): number => [...s].length;

function check(what: string, value: string, max: number): string {
  if (length(value) > max)
    throw new RenderLimitError(`${what} has ${length(value)} characters; WhatsApp allows ${max}.`);
  return value;
}

/** A reply button's or list row's id: the action code (src/core/action-code.ts), within WhatsApp's limit. */
export function replyId(interactionId: string, pick: ActionPick): string {
  return check('a reply id', encodeActionCode(interactionId, pick), REPLY_ID_MAX);
}

/**
 * The question with its hint, within `max`. A question too long for the message keeps its start and links the
 * callback page, where it reads in full.
 */
export function bodyText(question: string, hint: string, max: number, callbackUrl: string): string {
  const whole = `${question}\n\n${hint}`;
  if (length(whole) <= max) return whole;
  const tail = `\n\nRead it in full: ${callbackUrl}\n\n${hint}`;
  return check('the message body', `${clip(question, max - length(tail))}${tail}`, max);
}

/** The text of a select with more choices than a list holds: numbered, answered by a reply. */
export function numberedText(
  interaction: Pick<StoredInteraction, 'question' | 'choices'>,
  callbackUrl: string,
): string {
  const choices = interaction.choices ?? [];
  const numbered = (max: number): string => choices.map((c, i) => `${i + 1}. ${clip(c, max)}`).join('\n');
  const whole = `${interaction.question}\n\n${numbered(Infinity)}\n\n${HINT.selectNumbered}`;
  if (length(whole) <= TEXT_BODY_MAX) return whole;
  // 100 choices of 200 characters do not fit one message: each is cut to its share (the number still names the whole
  // choice), and the page, which lists them in full, is linked.
  const hint = `All choices in full: ${callbackUrl}\n${HINT.selectNumbered}`;
  const question = clip(interaction.question, 500);
  const share =
    Math.floor((TEXT_BODY_MAX - length(question) - length(hint) - 4) / Math.max(choices.length, 1)) -
    `${choices.length}. \n`.length;
  if (share >= 8) return check('the message body', `${question}\n\n${numbered(share)}\n\n${hint}`, TEXT_BODY_MAX);
  return bodyText(interaction.question, hint, TEXT_BODY_MAX, callbackUrl);
}

function buttons(
  interaction: StoredInteraction,
  items: Array<{ id: string; title: string }>,
  callbackUrl: string,
  hint: string,
): Json {
  if (items.length > REPLY_BUTTONS_MAX)
    throw new RenderLimitError(`the message has ${items.length} reply buttons; WhatsApp allows ${REPLY_BUTTONS_MAX}.`);
  return {
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: bodyText(interaction.question, hint, INTERACTIVE_BODY_MAX, callbackUrl) },
      action: {
        buttons: items.map((b) => ({
          type: 'reply',
          reply: { id: b.id, title: check('a button title', b.title, BUTTON_TITLE_MAX) },
        })),
      },
    },
  };
}

function list(interaction: StoredInteraction, callbackUrl: string): Json {
  const choices = interaction.choices ?? [];
  if (choices.length > LIST_ROWS_MAX)
    throw new RenderLimitError(`the list has ${choices.length} rows; WhatsApp allows ${LIST_ROWS_MAX}.`);
  const rows = choices.map((choice, index) => {
    const row: Json = {
      id: replyId(interaction.id, { kind: 'choice', index }),
      title: clip(choice, ROW_TITLE_MAX),
    };
    // A clipped title goes on in the row's description, so the person reads the whole choice before tapping.
    if (length(choice) > ROW_TITLE_MAX) row['description'] = clip(choice, ROW_DESCRIPTION_MAX);
    check('a list row title', row['title'] as string, ROW_TITLE_MAX);
    return row;
  });
  return {
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: bodyText(interaction.question, HINT.selectList, INTERACTIVE_BODY_MAX, callbackUrl) },
      action: { button: check('the list button', 'Choose', LIST_BUTTON_MAX), sections: [{ rows }] },
    },
  };
}

/** The message a question is delivered as, except a form (see `flowMessage`). */
export function renderQuestion(interaction: StoredInteraction, callbackUrl: string): Json {
  // The controls come from the format's render hint (src/core/formats/).
  switch (renderHints(interaction).controls) {
    case 'buttons':
      return buttons(
        interaction,
        [
          { id: replyId(interaction.id, { kind: 'confirm', value: true }), title: 'Yes' },
          { id: replyId(interaction.id, { kind: 'confirm', value: false }), title: 'No' },
        ],
        callbackUrl,
        HINT.confirm,
      );
    case 'menu': {
      const choices = interaction.choices ?? [];
      if (choices.length <= REPLY_BUTTONS_MAX) {
        return buttons(
          interaction,
          choices.map((c, index) => ({
            id: replyId(interaction.id, { kind: 'choice', index }),
            title: clip(c, BUTTON_TITLE_MAX),
          })),
          callbackUrl,
          HINT.selectButtons,
        );
      }
      if (choices.length <= LIST_ROWS_MAX) return list(interaction, callbackUrl);
      return { type: 'text', text: { body: numberedText(interaction, callbackUrl) } };
    }
    case 'text':
      return { type: 'text', text: { body: bodyText(interaction.question, HINT.text, TEXT_BODY_MAX, callbackUrl) } };
    case 'external':
      return {
        type: 'text',
        text: {
          body: bodyText(interaction.question, `${HINT.external} ${callbackUrl}`, TEXT_BODY_MAX, callbackUrl),
          preview_url: false,
        },
      };
    case 'form':
      throw new RenderLimitError('a form is sent as a WhatsApp Flow; use flowMessage.');
    case 'review':
      throw new RenderLimitError('a review is rendered by channels/whatsapp/review.ts; use renderReview.');
  }
}

/** The interactive flow message of a form: `flow_token` names the interaction, `data` pre-sets the error words. */
export function flowMessage(
  interaction: StoredInteraction,
  callbackUrl: string,
  flowId: string,
  flowToken: string,
  data: Json,
  note?: string,
): Json {
  const question = note === undefined ? interaction.question : `${note}\n\n${interaction.question}`;
  return {
    type: 'interactive',
    interactive: {
      type: 'flow',
      body: { text: bodyText(question, HINT.form, INTERACTIVE_BODY_MAX, callbackUrl) },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: flowToken,
          flow_id: flowId,
          flow_cta: check('the flow button', 'Open the form', FLOW_CTA_MAX),
          flow_action: 'navigate',
          flow_action_payload: { screen: 'FORM', data },
        },
      },
    },
  };
}
