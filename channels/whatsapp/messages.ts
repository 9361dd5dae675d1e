import { replyHint, tellNotTaken, type NotTaken } from '../replies.js';
import { ChannelError } from '../contract.js';
import { clip } from '../outcome.js';
import { compileFlow, flowData } from './flow.js';
import type { FlowPublisher } from './flows.js';
import { CAPTION_MAX, RenderLimitError, TEXT_BODY_MAX } from './limits.js';
import { flowMessage, renderQuestion, type Json } from './render.js';
import { renderReview } from './review.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { actionText } from '../../src/core/review-view.js';

/**
 * The messages the WhatsApp channel sends (the question, its template fallback, the words a refused reply gets) and
 * the ChannelError a failed send becomes. Kept apart from the plugin so it keeps only the send and webhook flow.
 */

/** A Flow's token names the question it answers: this prefix and the interaction id. */
export const FLOW_TOKEN_PREFIX = 'askgate:';

/** What a person who writes with no open question and no route is told. */
export const NOTHING_OPEN = 'There is no open question to answer.';

export function toChannelError(err: unknown): ChannelError {
  if (err instanceof ChannelError) return err;
  if (err instanceof RenderLimitError)
    return new ChannelError('whatsapp', 'invalid', err.message, null, { cause: err });
  return new ChannelError('whatsapp', 'network', err instanceof Error ? err.message : String(err), null, {
    cause: err,
  });
}

/** The question as a session message: buttons, a list or text, or, for a form, the Flow (published on first use). */
export async function questionMessage(
  interaction: StoredInteraction,
  callbackUrl: string,
  flows: FlowPublisher | null,
): Promise<Json> {
  if (interaction.answer_format === 'review') {
    // Edit answers with a Flow: without a business account to own it, the review cannot offer edit here.
    if (flows === null && (interaction.decisions ?? []).includes('edit'))
      throw new ChannelError(
        'whatsapp',
        'invalid',
        'edit on a review needs WHATSAPP_BUSINESS_ACCOUNT_ID (its edit form is a WhatsApp Flow); ' +
          'drop "edit" from decisions or set it.',
      );
    return renderReview(interaction);
  }
  if (interaction.answer_format !== 'form') return renderQuestion(interaction, callbackUrl);
  if (flows === null || interaction.schema === null)
    throw new ChannelError('whatsapp', 'invalid', 'forms need WHATSAPP_BUSINESS_ACCOUNT_ID (the Flows owner).');
  const flowId = await flows.flowFor(compileFlow(interaction.schema));
  return flowMessage(
    interaction,
    callbackUrl,
    flowId,
    `${FLOW_TOKEN_PREFIX}${interaction.id}`,
    flowData(interaction.schema),
  );
}

/** The most characters of a review's action in a template's one parameter (the question keeps the rest). */
const TEMPLATE_ACTION_MAX = 600;

/** The template carries the question as its one body parameter; a reply to it answers like a reply to a text. */
export function templateMessage(
  interaction: StoredInteraction,
  name: string,
  language: string,
  callbackUrl: string,
): Json {
  const choices =
    interaction.answer_format === 'select'
      ? ` ${(interaction.choices ?? []).map((c, i) => `${i + 1}. ${c}`).join('; ')}`
      : '';
  // A review's action goes in too, its lines joined by "; " (the parameter takes one line): what is decided on.
  const action =
    interaction.answer_format === 'review' && interaction.action !== undefined
      ? ` ${actionText(interaction.action, { budget: TEMPLATE_ACTION_MAX, maxValue: 80 }).replace(/\n/g, '; ')}`
      : '';
  const raw =
    interaction.answer_format === 'form' && callbackUrl !== ''
      ? `${interaction.question} ${callbackUrl}`
      : `${interaction.question}${choices}${action}`;
  // The Cloud API refuses a template parameter holding a new line, a tab or more than 4 spaces in a row (132018).
  const text = raw.replace(/\s*[\n\t]\s*/g, ' ').replace(/ {5,}/g, ' ');
  return {
    type: 'template',
    template: {
      name,
      language: { code: language },
      components: [{ type: 'body', parameters: [{ type: 'text', text: clip(text, CAPTION_MAX) }] }],
    },
  };
}

export const textMessage = (body: string): Json => ({ type: 'text', text: { body: clip(body, TEXT_BODY_MAX) } });

/** Told to a person who replies to a form question in words: a form is answered in its Flow. */
export const FORM_ONLY = 'Please answer with the form: tap “Open the form” on the question.';

/** The words a reply that was not taken gets back. */
export function tellOutcome(outcome: NotTaken): string {
  if (outcome.kind !== 'refused' || outcome.refusal.code !== 'invalid_answer') return tellNotTaken(outcome);
  const stored = outcome.question;
  // Not `replyHint`: WhatsApp clips a long choice list with an ellipsis where the shared hint cuts it flat; a form
  // (answered in its Flow, never by a reply) is told so.
  if (stored.answer_format === 'form') return outcome.message;
  if (stored.answer_format === 'review') return replyHint(stored, outcome.message);
  if (stored.answer_format === 'confirm') return 'Please answer yes or no.';
  if (stored.answer_format === 'select')
    return clip(
      `Please answer with one of: ${(stored.choices ?? []).map((c, i) => `${i + 1}. ${c}`).join(', ')}`,
      1000,
    );
  return `That answer was not accepted: ${outcome.message}`;
}
