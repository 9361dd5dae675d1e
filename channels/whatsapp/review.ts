import {
  BUTTON_TITLE_MAX,
  INTERACTIVE_BODY_MAX,
  REPLY_BUTTONS_MAX,
  RenderLimitError,
  TEXT_BODY_MAX,
} from './limits.js';
import { editPrefill, reviewButtons } from '../../src/core/review-view.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { decidedAction, reviewText } from '../review-text.js';
import { offeredDecisions } from '../../src/core/formats/index.js';
import { labelList } from '../review-words.js';
import { compileFlow, flowData } from './flow.js';
import type { FlowPublisher } from './flows.js';
import { flowMessage, replyId, type Json } from './render.js';

/**
 * A review on WhatsApp: one interactive message whose body (1024 characters) holds the question, the proposed
 * action as readable lines and a hint, with up to three reply buttons — Approve and Reject answer on the tap (their
 * ids action codes), Edit answers with a WhatsApp Flow pre-filled with the proposed arguments. Respond is a reply
 * to the message. A review offering only respond is a text message (4096 characters) answered by a reply.
 */

/** The words above a review's edit form in the chat. */
export const REVIEW_FLOW_NOTE = 'Edit the arguments, then tap Send.';

/** The hint under a pending review. */
export function reviewHint(question: StoredInteraction): string {
  const offered = offeredDecisions(question);
  const taps = offered.filter((d) => d !== 'respond');
  const tap = taps.length === 0 ? '' : `Tap ${labelList(taps)}.`;
  return `${tap}${offered.includes('respond') ? ' Reply to this message with words for the agent.' : ''}`.trim();
}

/** The body of a review (the question, the action, `footer`) within `max`. */
export function reviewBody(question: StoredInteraction, footer: string, max: number): string {
  const action = decidedAction(question);
  if (action === null) throw new RenderLimitError('a review question without its action cannot be shown.');
  return reviewText({ question: question.question, action, footer, max });
}

/** The message a review is delivered as. */
export function renderReview(question: StoredInteraction): Json {
  const buttons = reviewButtons(question.id, offeredDecisions(question)).filter((b) => b.decision !== 'respond');
  if (buttons.length === 0)
    return { type: 'text', text: { body: reviewBody(question, reviewHint(question), TEXT_BODY_MAX) } };
  if (buttons.length > REPLY_BUTTONS_MAX)
    throw new RenderLimitError(`the review has ${buttons.length} reply buttons; WhatsApp allows ${REPLY_BUTTONS_MAX}.`);
  return {
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: reviewBody(question, reviewHint(question), INTERACTIVE_BODY_MAX) },
      action: {
        buttons: buttons.map((b) => {
          if ([...b.label].length > BUTTON_TITLE_MAX)
            throw new RenderLimitError(
              `a button title has ${b.label.length} characters; WhatsApp allows ${BUTTON_TITLE_MAX}.`,
            );
          return {
            type: 'reply',
            reply: { id: replyId(question.id, { kind: 'review', decision: b.decision }), title: b.label },
          };
        }),
      },
    },
  };
}

/**
 * The edit form of a review: the Flow of its schema compiled to be pre-filled, sent with `initial` (the proposed
 * arguments, or what the person submitted when a refusal sends it again) and the error words of a refusal.
 */
export async function editFlowMessage(
  question: StoredInteraction,
  flows: FlowPublisher,
  token: string,
  options: { initial?: Record<string, unknown>; errors?: Map<string, string>; note?: string } = {},
): Promise<Json> {
  const schema = question.schema;
  if (schema === null || question.action === undefined)
    throw new RenderLimitError('a review without a schema has no edit form.');
  const initial = options.initial ?? editPrefill(schema, question.action.args);
  const flowId = await flows.flowFor(compileFlow(schema, { prefill: true }));
  return flowMessage(
    question,
    '',
    flowId,
    token,
    flowData(schema, options.errors, initial),
    options.note ?? REVIEW_FLOW_NOTE,
  );
}
