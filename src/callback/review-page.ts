/**
 * The callback page of a review: the proposed action, approve and reject as one press (two submit buttons of one
 * form, no script needed), edit as the schema's form filled in with the proposed arguments, respond as a text box.
 * Each form posts `decision` with what it carries (`args.<field>`, `message`), which the review format reads back
 * (src/core/formats/review.ts, `fromPage`). A refused post shows the same page with its form open and its errors.
 */
import { escapeHtml, renderFormHtml } from '../../forms/render-html.js';
import { renderActionHtml } from '../../forms/review-html.js';
import { DECISION_LABELS, editPrefill, REJECT_NOTE } from '../../forms/review-view.js';
import { offeredDecisions, REVIEW_LIMITS } from '../core/formats/index.js';
import type { InteractionRecord, JsonSchema, ReviewDecision } from '../core/types.js';
import type { Refusal } from './pages.js';

/** The form post of one decision: the renderer's form with the decision as a hidden entry right after its tag. */
function withDecision(formHtml: string, decision: ReviewDecision): string {
  const end = formHtml.indexOf('>') + 1;
  return `${formHtml.slice(0, end)}<input type="hidden" name="decision" value="${decision}">${formHtml.slice(end)}`;
}

/** Posted `args.<field>` entries as the nested values the renderer fills a form from. */
function nestedValues(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const parts = name.split('.');
    let at = out;
    for (const part of parts.slice(0, -1)) {
      const next = at[part];
      at[part] = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {};
      at = at[part] as Record<string, unknown>;
    }
    at[parts.at(-1) as string] = value;
  }
  return out;
}

/** Which decision a refused post was (its form opens again), from the posted entries. */
function refusedDecision(refusal: Refusal | null): string | null {
  const posted = refusal?.values['decision'];
  return typeof posted === 'string' ? posted : null;
}

/** The body of a review's callback page (under the question heading). */
export function reviewBody(record: InteractionRecord, refusal: Refusal | null): string {
  const decisions = offeredDecisions(record);
  const again = refusedDecision(refusal);
  const errors = refusal?.errors ?? {};
  const action = record.action === undefined ? '' : renderActionHtml(record.action);
  const parts: string[] = [action];
  // A refused reject came from the note's form when it carried a message, else from the one-press button.
  const againNote = again === 'reject' && refusal?.values['message'] !== undefined;
  const taps = decisions.filter((d) => d === 'approve' || d === 'reject');
  if (taps.length > 0) {
    const top =
      again === 'approve' || (again === 'reject' && !againNote) ? (errors[''] ?? errors['decision'] ?? '') : '';
    parts.push(
      `<form class="ag-form cb-review-decide" method="post" accept-charset="utf-8">` +
        `<p class="form-error" role="alert">${escapeHtml(top)}</p><div class="review-buttons">${taps
          .map(
            (d) =>
              `<button type="submit" name="decision" value="${d}" class="${d === 'approve' ? 'ag-submit' : 'cb-reject'}">` +
              `${DECISION_LABELS[d]}</button>`,
          )
          .join('')}</div></form>`,
    );
  }
  if (decisions.includes('reject')) parts.push(rejectNotePanel(againNote ? refusal : null));
  if (decisions.includes('edit') && record.action !== undefined) {
    // The panel's summary heads the form; the args group only names the fields `args.<key>` (a bare group). Without
    // a schema the args are one JSON field, which needs its own label.
    const argsSchema: JsonSchema =
      record.schema === null ? { type: 'object', title: 'Arguments (JSON)' } : { ...record.schema };
    const schema: JsonSchema = { type: 'object', required: ['args'], properties: { args: argsSchema } };
    const values =
      again === 'edit' && refusal !== null
        ? nestedValues(refusal.values)
        : { args: editPrefill(record.schema, record.action.args) };
    const form = renderFormHtml(schema, {
      values,
      errors: again === 'edit' ? errors : {},
      submitLabel: 'Send edited call',
      idPrefix: 'cb-edit',
      bareGroups: ['args'],
    });
    parts.push(panel('Edit the arguments', withDecision(form, 'edit'), again === 'edit'));
  }
  if (decisions.includes('respond')) {
    const schema: JsonSchema = {
      type: 'object',
      required: ['message'],
      properties: {
        message: { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.message, title: 'Your response' },
      },
    };
    const form = renderFormHtml(schema, {
      values: again === 'respond' ? (refusal?.values ?? {}) : {},
      errors: again === 'respond' ? errors : {},
      submitLabel: 'Send response',
      idPrefix: 'cb-respond',
    });
    parts.push(panel('Respond instead', withDecision(form, 'respond'), again === 'respond'));
  }
  return parts.join('');
}

/**
 * Reject with a note: the one-press Reject above sends no words; this form sends the person's note with the
 * rejection (the message a reject may carry). Open again, with its words and the reason, when its post was refused.
 */
function rejectNotePanel(refusal: Refusal | null): string {
  const schema: JsonSchema = {
    type: 'object',
    required: ['message'],
    properties: {
      message: { type: 'string', minLength: 1, maxLength: REVIEW_LIMITS.message, title: REJECT_NOTE.label },
    },
  };
  const form = renderFormHtml(schema, {
    values: refusal?.values ?? {},
    errors: refusal?.errors ?? {},
    submitLabel: DECISION_LABELS.reject,
    idPrefix: 'cb-reject',
  });
  return panel(
    REJECT_NOTE.open,
    `<p class="review-panel-note">${escapeHtml(REJECT_NOTE.hint)}</p>${withDecision(form, 'reject')}`,
    refusal !== null,
    'cb-review-reject',
  );
}

/** A section a person opens (native `<details>`, no script): open again when its post was refused. */
function panel(summary: string, body: string, open: boolean, extraClass = ''): string {
  const classes = extraClass === '' ? 'cb-review-panel' : `cb-review-panel ${extraClass}`;
  return `<details class="${classes}"${open ? ' open' : ''}><summary>${escapeHtml(summary)}</summary>${body}</details>`;
}
