import type { ChannelCore, DispatchOutcome } from '../contract.js';
import { ChannelError } from '../contract.js';
import { compileFlow, checkFlowAnswer, decodeFlowValues, fieldLabels, fieldOfRefusal, flowData } from './flow.js';
import type { FlowPublisher } from './flows.js';
import { quotedQuestion, personParams, surfaceOf, whoIs } from './inbound.js';
import { FLOW_TOKEN_PREFIX } from './messages.js';
import { flowMessage, type Json } from './render.js';
import { editFlowMessage } from './review.js';
import type { FlowReplyEvent } from './webhook.js';

/**
 * A submitted WhatsApp Flow answered: a form's values, or a review's edited arguments. Apart from the plugin because
 * it is the one inbound path with a second round of its own — a refused Flow is answered with a fresh one whose
 * fields show the words — while taps and replies are one dispatch and a line back.
 */

/** What a Flow reply needs from the channel: the Flow publisher (null without a business account), and its sends. */
export interface FlowReplyContext {
  flows: FlowPublisher | null;
  /** A courtesy message quoting `contextId`; its failure is logged, never thrown. */
  send(to: string, message: Json, contextId?: string): Promise<void>;
  /** Tells the person why their answer was not taken (nothing for a win or a question not theirs). */
  tell(outcome: DispatchOutcome, event: { from: string; messageId: string }): Promise<void>;
}

/** A submitted Flow: checked here with the form's own rules first, then by the core against the schema. */
export async function answerFlow(event: FlowReplyEvent, core: ChannelCore, ctx: FlowReplyContext): Promise<void> {
  const id =
    event.flowToken?.startsWith(FLOW_TOKEN_PREFIX) === true ? event.flowToken.slice(FLOW_TOKEN_PREFIX.length) : null;
  if (id === null) return;
  let errors = new Map<string, string>();
  let submitted: Record<string, unknown> = {};
  const outcome = await core.dispatch({
    question: { by: 'id', id },
    surface: surfaceOf(event.from),
    pick: {
      kind: 'read',
      read: (question) => {
        if (question.schema === null)
          return { ok: false, refusal: { code: 'invalid_answer', field: null, reason: 'no form' }, message: '' };
        const { answer, inputs } = decodeFlowValues(question.schema, event.values);
        submitted = answer;
        errors = checkFlowAnswer(question.schema, answer, inputs);
        // A review's Flow edits the proposed action's arguments.
        if (errors.size === 0)
          return {
            ok: true,
            answer: question.answer_format === 'review' ? { decision: 'edit', args: answer } : answer,
          };
        return {
          ok: false,
          refusal: { code: 'invalid_answer', field: null, reason: 'fields do not fit' },
          message: 'Please check the form.',
          fields: Object.fromEntries(errors),
        };
      },
    },
    answeredBy: whoIs(event.from),
    params: { ...personParams(event), flow_token: event.flowToken ?? '' },
    replyTo: (question) => quotedQuestion(question, event.contextId),
  });
  if (outcome.kind !== 'refused' || outcome.refusal.code !== 'invalid_answer') {
    await ctx.tell(outcome, event);
    return;
  }
  const stored = outcome.question;
  if (stored.schema === null) return;
  if (errors.size === 0) {
    // The core refused what the form's own rules took: its refusal, on its field.
    const { reason } = outcome.refusal;
    // A review's edit is refused at `args.<path>`: the Flow's fields are the args' own.
    const field =
      stored.answer_format === 'review'
        ? (outcome.refusal.field?.replace(/^args\./, '') ?? null)
        : outcome.refusal.field;
    const refusal = fieldOfRefusal(stored.schema, field === null ? { reason } : { field, reason });
    errors = new Map([[refusal.field ?? '', refusal.words]]);
  }
  // Refused: a fresh form whose fields show the words, and the same words in the chat above it.
  const labels = fieldLabels(stored.schema);
  const note = [...errors]
    .map(([field, words]) => (field === '' ? words : `${labels.get(field) ?? field}: ${words}`))
    .join('\n');
  if (stored.answer_format === 'review') {
    const again = await editFlowMessage(stored, requireFlows(ctx.flows), `${FLOW_TOKEN_PREFIX}${stored.id}`, {
      initial: submitted,
      errors,
      note: `Please check:\n${note}`,
    });
    await ctx.send(event.from, again, event.messageId);
    return;
  }
  const fresh = flowMessage(
    stored,
    '',
    await requireFlows(ctx.flows).flowFor(compileFlow(stored.schema)),
    `${FLOW_TOKEN_PREFIX}${stored.id}`,
    flowData(stored.schema, errors),
    `Please check:\n${note}`,
  );
  await ctx.send(event.from, fresh, event.messageId);
}

function requireFlows(flows: FlowPublisher | null): FlowPublisher {
  if (flows === null) throw new ChannelError('whatsapp', 'invalid', 'forms need WHATSAPP_BUSINESS_ACCOUNT_ID.');
  return flows;
}
