import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
  webApi,
} from '@slack/bolt';
import type { ChannelCore, ReadAnswer } from '../contract.js';
import { tellNotTaken } from '../replies.js';
import {
  buildFormView,
  checkSubmission,
  decodeMetadata,
  firstInputBlock,
  readFormValue,
  refusalOnModal,
  type FormMetadata,
  type ViewStateValues,
} from './modal.js';
import { closedView, personParams, str, whoIs, type Json } from './pieces.js';
import { editView } from './review.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * A question's modal once it is open: a visibleWhen controller changed (the view rebuilt with the fields that now
 * show), or the modal submitted (checked against the schema, offered, and acknowledged with the modal's next state).
 * Apart from the plugin because a modal answers through Bolt's `ack` rather than a message, and from modal.ts, which
 * builds and reads views without a core to ask.
 */

/** A visibleWhen controller changed inside the modal: rebuild the view with the fields that now show. */
export async function rebuildOnFieldChange(
  { ack, body }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs,
  core: ChannelCore,
  update: (request: { view_id: string; hash: string; view: webApi.View }) => Promise<void>,
): Promise<void> {
  await ack();
  const view = body.view;
  const meta = decodeMetadata(view?.private_metadata);
  if (view === undefined || meta === null) return;
  const stored = await core.get(meta.interactionId);
  if (stored === null || stored.schema === null) return;
  const { value } = readFormValue(stored.schema, view.state.values as unknown as ViewStateValues);
  const next = viewOf(stored, meta, value);
  // The hash makes Slack refuse an update built from a stale view (hash_conflict) instead of overwriting it.
  await update({ view_id: view.id, hash: view.hash, view: next as unknown as webApi.View });
}

/** A submitted modal: checked on the server against the schema, then offered; errors keep the modal open. */
export async function answerSubmission(
  { ack, body, view }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs,
  core: ChannelCore,
): Promise<void> {
  const meta = decodeMetadata(view.private_metadata);
  if (meta === null) {
    await ack({ response_action: 'update', view: closedView('unknown') as unknown as webApi.View });
    return;
  }
  const values = view.state.values as unknown as ViewStateValues;
  const user = body.user as unknown as Json;
  const outcome = await core.dispatch({
    question: { by: 'id', id: meta.interactionId },
    // The modal remembers the message it was opened from: that message must be one of the question's surfaces.
    surface: { channel: 'slack', delivery: { channel: meta.channel, ts: meta.ts } },
    pick: { kind: 'read', read: (question) => readSubmission(question, values) },
    answeredBy: whoIs(str(user['id'])),
    params: personParams(user, meta.channel, meta.ts),
    replyTo: null,
  });
  switch (outcome.kind) {
    case 'answered':
    case 'ready':
      await ack();
      return;
    case 'refused': {
      const schema = outcome.question.schema;
      if (outcome.fields !== undefined) {
        await ack({ response_action: 'errors', errors: { ...outcome.fields } });
        return;
      }
      const refusal = { reason: outcome.refusal.reason, message: outcome.message };
      // A review's edit is refused at `args.<path>`: the modal's fields are the args' own.
      const field =
        outcome.question.answer_format === 'review'
          ? (outcome.refusal.field?.replace(/^args\./, '') ?? null)
          : outcome.refusal.field;
      const shown =
        outcome.refusal.code !== 'invalid_answer' || schema === null
          ? null
          : refusalOnModal(
              schema,
              field === null ? refusal : { ...refusal, field },
              firstInputBlock(schema, checkedAnswer(schema, values)),
            );
      await ack(
        shown === null
          ? {
              response_action: 'update',
              view: closedView('unknown', tellNotTaken(outcome)) as unknown as webApi.View,
            }
          : { response_action: 'errors', errors: { [shown.block]: shown.words } },
      );
      return;
    }
    default:
      await ack({
        response_action: 'update',
        view: closedView(outcome.kind === 'closed' ? outcome.status : 'unknown') as unknown as webApi.View,
      });
  }
}

/** The modal of a question: a form's, or a review's edit (pre-filled with the proposed arguments). */
export function viewOf(question: StoredInteraction, meta: FormMetadata, value?: Record<string, unknown>) {
  return question.answer_format === 'review' ? editView(question, meta, value) : buildFormView(question, meta, value);
}

/** A submitted modal read against its question: the answer, or every field that does not fit, by its block. */
function readSubmission(question: StoredInteraction, values: ViewStateValues): ReadAnswer {
  if (question.schema === null)
    return {
      ok: false,
      refusal: { code: 'invalid_answer', field: null, reason: 'the question has no form' },
      message: 'This question has no form to submit.',
    };
  const checked = checkSubmission(question.schema, values);
  // A review's modal edits the proposed action's arguments.
  if (checked.ok)
    return {
      ok: true,
      answer: question.answer_format === 'review' ? { decision: 'edit', args: checked.answer } : checked.answer,
    };
  return {
    ok: false,
    refusal: { code: 'invalid_answer', field: null, reason: 'some fields do not fit' },
    message: 'Some fields do not fit.',
    fields: checked.errors,
  };
}

/** The typed answer so far, for where an error of no field lands. */
function checkedAnswer(
  schema: NonNullable<StoredInteraction['schema']>,
  values: ViewStateValues,
): Record<string, unknown> {
  return readFormValue(schema, values).value;
}
