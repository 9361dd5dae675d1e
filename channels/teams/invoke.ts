import { readForm } from './form.js';
import {
  CHOICE_INPUT,
  DATA_KEY,
  MESSAGE_INPUT,
  VERB,
  cardResponse,
  messageResponse,
  outcomeCard,
  renderFormAgain,
  renderReviewEdit,
  renderReviewRespond,
  renderVotes,
} from './render.js';
import type { TeamsEvent } from './webhook.js';
import type { ChannelCore, Pick } from '../contract.js';
import { tellClosed, tellNotTaken } from '../replies.js';
import { decodeActionCode } from '../../src/core/action-code.js';
import { pickOfCode, type DispatchOutcome } from '../../src/core/dispatcher.js';
import type { Schema } from '../../forms/fields.js';

/**
 * An `adaptiveCard/action` invoke: what the pressed `Action.Execute` means (the question and the pick, a form to
 * read, a review's edit or respond card to open), and the card or words askgate answers the invoke with.
 */

type Json = Record<string, unknown>;
type ActionEvent = Extract<TeamsEvent, { kind: 'action' }>;

/** What a pressed action means. `form` and `edit` are read from the card's inputs with the question in hand. */
export interface DecodedAction {
  id: string;
  kind: 'pick' | 'form' | 'edit';
  pick: Pick;
  /** A review's Edit or Respond button: the card to open when the question is still open. */
  opens: 'edit' | 'respond' | null;
}

/** A refused form submission, as the person typed it, with each refused field's sentence. */
export interface FormRefusal {
  values: Json;
  errors: Record<string, string>;
}

const LOOK: Pick = { kind: 'look' };

export function decodeAction(event: ActionEvent): DecodedAction | null {
  const value = event.data[DATA_KEY];
  if (typeof value !== 'string') return null;
  switch (event.verb) {
    case VERB.answer: {
      const code = decodeActionCode(value);
      if (code === null || code.pick.kind === 'page') return null;
      const opens = code.pick.kind === 'review' && (code.pick.decision === 'edit' || code.pick.decision === 'respond');
      return {
        id: code.interactionId,
        kind: 'pick',
        pick: pickOfCode(code.pick),
        opens: opens && code.pick.kind === 'review' ? (code.pick.decision as 'edit' | 'respond') : null,
      };
    }
    case VERB.select: {
      const index = Number(event.data[CHOICE_INPUT]);
      const pick: Pick = Number.isInteger(index) ? { kind: 'choice', index } : { kind: 'answer', answer: undefined };
      return { id: value, kind: 'pick', pick, opens: null };
    }
    case VERB.respond: {
      const words = event.data[MESSAGE_INPUT];
      const message = typeof words === 'string' ? words.trim() : '';
      return { id: value, kind: 'pick', pick: { kind: 'review', decision: 'respond', message }, opens: null };
    }
    case VERB.form:
      return { id: value, kind: 'form', pick: LOOK, opens: null };
    case VERB.edit:
      return { id: value, kind: 'edit', pick: LOOK, opens: null };
    default:
      return null;
  }
}

/** The pick to dispatch: a form's (or an edit's) inputs read against the question's schema; `refused` keeps why. */
export function pickFor(decoded: DecodedAction, event: ActionEvent, refused: (r: FormRefusal) => void): Pick {
  if (decoded.kind === 'pick') return decoded.pick;
  return {
    kind: 'read',
    read: (question) => {
      const read = readForm((question.schema ?? {}) as Schema, event.data);
      if (read.ok)
        return { ok: true, answer: decoded.kind === 'edit' ? { decision: 'edit', args: read.answer } : read.answer };
      refused({ values: read.values, errors: read.errors });
      return {
        ok: false,
        refusal: { code: 'invalid_answer', field: read.first.field, reason: read.first.error },
        message: `${read.first.label}: ${read.first.error}`,
        fields: read.errors,
      };
    },
  };
}

/** The card (or the words) the invoke is answered with. */
export async function invokeAnswer(
  outcome: DispatchOutcome,
  decoded: DecodedAction,
  refusal: FormRefusal | null,
  core: ChannelCore,
): Promise<Json> {
  switch (outcome.kind) {
    case 'answered':
      return cardResponse(outcomeCard((await core.get(outcome.question.id)) ?? outcome.question));
    case 'closed':
      return cardResponse(outcomeCard(outcome.question));
    case 'voted': {
      const votes = renderVotes((await core.get(outcome.question.id)) ?? outcome.question);
      return cardResponse((votes['attachments'] as Json[])[0]?.['content'] as Json);
    }
    case 'ready':
      if (decoded.opens === 'edit') return cardResponse(renderReviewEdit(outcome.question, null, {}, null));
      if (decoded.opens === 'respond') return cardResponse(renderReviewRespond(outcome.question));
      return messageResponse(tellClosed('unknown'));
    case 'refused': {
      const q = outcome.question;
      if (outcome.refusal.code === 'invalid_answer' && decoded.kind !== 'pick') {
        const errors: Record<string, string> = { ...(refusal?.errors ?? {}) };
        // The core's own check (the whole schema, not only the subset): `args.<path>` on a review's edit.
        for (const v of outcome.violations ?? []) errors[v.field.replace(/^args\./, '')] ??= v.reason;
        const note = refusal === null ? outcome.message : null;
        return cardResponse(
          decoded.kind === 'edit'
            ? renderReviewEdit(q, refusal?.values ?? null, errors, note)
            : renderFormAgain(q, refusal?.values ?? {}, errors, note),
        );
      }
      return messageResponse(tellNotTaken(outcome));
    }
    default:
      return messageResponse(tellNotTaken(outcome));
  }
}
