import {
  BUTTON_LABEL_MAX,
  BUTTON_STYLE,
  COMPONENT,
  CONTENT_MAX,
  CUSTOM_ID_MAX,
  MESSAGE_ROWS_MAX,
  OPTION_LABEL_MAX,
  OPTION_VALUE_MAX,
  ROW_BUTTONS_MAX,
  SELECT_BUTTONS_MAX,
  SELECT_OPTIONS_MAX,
  SELECT_PLACEHOLDER_MAX,
  checkLimit,
  chars,
  clip,
} from './limits.js';
import { encodeControlId, type ControlId } from './webhook.js';
import { type Answerer, outcomeLine, plainAnswerer, voteCountLine } from '../outcome.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { reviewContent, reviewControls, reviewHint } from './review.js';

/**
 * A question → the body of Discord's Create Message (content and components), and its outcome → the body of Edit
 * Message. Every Discord number is checked here against channels/discord/limits.ts, so a message Discord would
 * refuse fails before the call, naming the limit.
 *
 * | format             | controls                                                                        |
 * | ------------------ | ------------------------------------------------------------------------------- |
 * | confirm            | Yes / No buttons                                                                |
 * | select             | ≤ 5 short choices: one button each; otherwise string selects of 25, one per row |
 * | text, external     | an "Answer" button that opens a modal with one paragraph input                  |
 * | form               | an "Open form" button that opens the form's modal (channels/discord/modal.ts)   |
 */

type Json = Record<string, unknown>;
export interface MessageBody {
  content: string;
  components: Json[];
}

/** The hint line under a question, per format. */
export function hintOf(interaction: StoredInteraction): string {
  switch (interaction.answer_format) {
    case 'confirm':
      return 'Choose Yes or No.';
    case 'select':
      return 'Pick one of the choices.';
    case 'form':
      return 'Press “Open form” to answer.';
    case 'text':
    case 'external':
      return 'Press “Answer” to reply.';
    case 'review':
      return reviewHint(interaction);
  }
}

/** The question, cut so that it and `footer` fit one message's content. */
function content(question: string, footer: string): string {
  const room = CONTENT_MAX - chars(footer) - 2;
  const text = `${clip(question, room)}\n\n${footer}`;
  checkLimit('message content', chars(text), CONTENT_MAX, 'content');
  return text;
}

function checked(text: string): string {
  checkLimit('message content', chars(text), CONTENT_MAX, 'content');
  return text;
}

function controlId(control: ControlId): string {
  const id = encodeControlId(control);
  checkLimit('custom_id', chars(id), CUSTOM_ID_MAX, 'custom_id');
  return id;
}

function button(label: string, style: number, control: ControlId): Json {
  checkLimit('button label', chars(label), BUTTON_LABEL_MAX, 'button label');
  return { type: COMPONENT.BUTTON, style, label, custom_id: controlId(control) };
}

function row(components: Json[]): Json {
  checkLimit('components in one action row', components.length, ROW_BUTTONS_MAX, 'action row');
  return { type: COMPONENT.ACTION_ROW, components };
}

/** Choices as buttons when they fit one row with their whole labels; string selects of 25 otherwise. */
function selectRows(interactionId: string, choices: readonly string[]): Json[] {
  if (choices.length <= SELECT_BUTTONS_MAX && choices.every((c) => chars(c) <= BUTTON_LABEL_MAX && c.trim() !== ''))
    return [row(choices.map((c, n) => button(c, BUTTON_STYLE.SECONDARY, { action: 'choice', interactionId, n })))];
  const pages = Math.ceil(choices.length / SELECT_OPTIONS_MAX);
  checkLimit('select menus for the choices', pages, MESSAGE_ROWS_MAX, 'action rows per message');
  return Array.from({ length: pages }, (_, page) => {
    const first = page * SELECT_OPTIONS_MAX;
    const slice = choices.slice(first, first + SELECT_OPTIONS_MAX);
    const placeholder = pages === 1 ? 'Choose…' : `Choose (${first + 1}–${first + slice.length})…`;
    checkLimit('select placeholder', chars(placeholder), SELECT_PLACEHOLDER_MAX, 'placeholder');
    const options = slice.map((choice, i) => {
      // The value is the choice's index: a choice of any length comes back whole, whatever its label shows.
      const value = String(first + i);
      checkLimit('option value', chars(value), OPTION_VALUE_MAX, 'option value');
      return { label: clip(choice.trim() === '' ? `Choice ${first + i + 1}` : choice, OPTION_LABEL_MAX), value };
    });
    checkLimit('options in one select', options.length, SELECT_OPTIONS_MAX, 'string select options');
    return {
      type: COMPONENT.ACTION_ROW,
      components: [
        {
          type: COMPONENT.STRING_SELECT,
          custom_id: controlId({ action: 'menu', interactionId, n: page }),
          placeholder,
          options,
          min_values: 1,
          max_values: 1,
        },
      ],
    };
  });
}

export function renderQuestion(interaction: StoredInteraction): MessageBody {
  const id = interaction.id;
  let components: Json[];
  switch (interaction.answer_format) {
    case 'confirm':
      components = [
        row([
          button('Yes', BUTTON_STYLE.SUCCESS, { action: 'yes', interactionId: id }),
          button('No', BUTTON_STYLE.DANGER, { action: 'no', interactionId: id }),
        ]),
      ];
      break;
    case 'select':
      components = selectRows(id, interaction.choices ?? []);
      break;
    case 'form':
      components = [row([button('Open form', BUTTON_STYLE.PRIMARY, { action: 'form', interactionId: id })])];
      break;
    case 'text':
    case 'external':
      components = [row([button('Answer', BUTTON_STYLE.PRIMARY, { action: 'answer', interactionId: id })])];
      break;
    case 'review':
      components = [row(reviewControls(interaction).map((b) => button(b.label, b.style, b.control)))];
      break;
  }
  checkLimit('action rows', components.length, MESSAGE_ROWS_MAX, 'action rows per message');
  if (interaction.answer_format === 'review')
    return { content: checked(reviewContent(interaction, hintOf(interaction))), components };
  return { content: content(interaction.question, hintOf(interaction)), components };
}

/** A pending quorum question with its live vote count above the hint; its components stay. */
export function renderVotes(interaction: StoredInteraction): MessageBody {
  const body = renderQuestion(interaction);
  const count = voteCountLine(interaction);
  if (count === null) return body;
  return { ...body, content: content(interaction.question, `${count}\n${hintOf(interaction)}`) };
}

/** The question with how it ended, and no components (an empty list removes them). */
export function renderOutcome(interaction: StoredInteraction): MessageBody {
  const line = outcomeLine(interaction, { who: discordWho }) ?? hintOf(interaction);
  // A review keeps its action in view, with the arguments it was decided with.
  if (interaction.answer_format === 'review')
    return { content: checked(reviewContent(interaction, line)), components: [] };
  return {
    content: content(interaction.question, outcomeLine(interaction, { who: discordWho }) ?? hintOf(interaction)),
    components: [],
  };
}

/** A Discord user's verified id as a mention (Discord renders their current name); anyone else by their id. */
function discordWho(answerer: Answerer): string {
  return answerer.platformId !== null && /^\d+$/.test(answerer.platformId)
    ? `<@${answerer.platformId}>`
    : plainAnswerer(answerer);
}
