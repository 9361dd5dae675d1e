/**
 * A review's card body, for the inbox and the web chat: the proposed action shown readably (its name, description and
 * arguments as key/value rows), approve and reject as one press each, edit opening the form filled in with the
 * proposed arguments (only the fields the schema names; a JSON field of them when there is no schema), respond
 * taking the person's words, and "Reject with a note…" opening a text box whose words go back with the rejection.
 * The buttons are web/controls.ts's, as every other format's; every text goes in through `textContent`; the only
 * HTML is the forms renderers' (`renderFormHtml`, `renderActionHtml`), which escape everything themselves.
 */
import type { InteractionRecord, JsonSchema } from '../src/core/types.js';
import { renderActionHtml } from '../forms/review-html.js';
import { DECISION_LABELS, editPrefill, REJECT_NOTE, type ReviewDecision } from '../forms/review-view.js';
import { button, buttonRow, el, textAnswer } from './controls.js';

/** What the card lends the review: its ways to send and to show a form. */
export interface ReviewDeps {
  /** The DOM id prefix of this card. */
  id: string;
  error: HTMLElement;
  /** Sends an answer, showing a refusal under the controls. */
  sendPlain(value: unknown): Promise<void>;
  /** The card's schema form in `holder`, its value wrapped by `toAnswer`, refusals under fields (`args.` dropped). */
  showForm(
    schema: JsonSchema,
    options: {
      holder: HTMLElement;
      values: Record<string, unknown>;
      submitLabel: string;
      toAnswer(value: unknown): unknown;
      fieldPrefix: string;
    },
  ): void;
}

/** The proposed action as a block (forms/review-html.ts, which escapes every string). */
export function renderAction(action: NonNullable<InteractionRecord['action']>): HTMLElement {
  const box = el('div', 'review-action-holder');
  box.innerHTML = renderActionHtml(action);
  return box;
}

/** The most characters of a note or a response (the review format's limit on `message`). */
const MESSAGE_MAX = 4096;

/**
 * The review's controls in `controls`: the action, a button per decision offered, "Reject with a note…" under them
 * when reject is offered, then the open panel (edit, respond or the note).
 */
export function renderReviewControls(record: InteractionRecord, controls: HTMLElement, deps: ReviewDeps): void {
  const action = record.action;
  if (action === undefined) return;
  controls.append(renderAction(action));
  const panel = el('div', 'review-panel');
  panel.hidden = true;
  const decisions: ReviewDecision[] = record.decisions ?? ['approve', 'reject'];
  const toggles: HTMLButtonElement[] = [];

  /** A button opening one panel under the buttons; pressing it again closes it. */
  const toggle = (
    label: string,
    kind: string,
    name: string,
    fill: (holder: HTMLElement) => void,
  ): HTMLButtonElement => {
    const b = button(label, kind, () => {
      const open = b.getAttribute('aria-expanded') === 'true';
      for (const other of toggles) other.setAttribute('aria-expanded', 'false');
      panel.replaceChildren();
      panel.hidden = open;
      deps.error.textContent = '';
      if (open) return;
      b.setAttribute('aria-expanded', 'true');
      fill(panel);
      panel.querySelector<HTMLElement>('input, textarea, select')?.focus();
    });
    b.setAttribute('aria-expanded', 'false');
    b.dataset['panel'] = name;
    toggles.push(b);
    return b;
  };

  const words =
    (
      name: 'respond' | 'reject',
      options: { note: string; label: string; submitLabel: string; submitKind: string; emptyMessage: string },
    ) =>
    (holder: HTMLElement): void => {
      holder.append(
        el('p', 'review-panel-note', options.note),
        textAnswer(
          `${deps.id}-${name}`,
          options.label,
          (message) => deps.sendPlain({ decision: name, message }),
          deps.error,
          {
            submitLabel: options.submitLabel,
            submitKind: options.submitKind,
            placeholder: options.label,
            emptyMessage: options.emptyMessage,
            maxLength: MESSAGE_MAX,
          },
        ),
      );
    };

  // One builder per decision; the row holds those the question offers, in its order.
  const builders: Readonly<Record<ReviewDecision, () => HTMLButtonElement>> = {
    approve: () => button(DECISION_LABELS.approve, 'primary', () => deps.sendPlain({ decision: 'approve' })),
    reject: () => button(DECISION_LABELS.reject, 'danger', () => deps.sendPlain({ decision: 'reject' })),
    edit: () =>
      toggle(DECISION_LABELS.edit, 'secondary', 'edit', (holder) => fillEdit(holder, record, action.args, deps)),
    respond: () =>
      toggle(
        DECISION_LABELS.respond,
        'secondary',
        'respond',
        words('respond', {
          note: 'Your words go back to the agent instead of a yes or no.',
          label: 'Your response',
          submitLabel: 'Send',
          submitKind: 'primary',
          emptyMessage: 'Write your response first.',
        }),
      ),
  };
  const buttons = decisions.map((decision) => builders[decision]());
  controls.append(buttonRow(buttons));
  if (decisions.includes('reject')) {
    const more = el('p', 'review-more');
    more.append(
      toggle(
        REJECT_NOTE.open,
        'link',
        'reject',
        words('reject', {
          note: REJECT_NOTE.hint,
          label: REJECT_NOTE.label,
          submitLabel: DECISION_LABELS.reject,
          submitKind: 'danger',
          emptyMessage: REJECT_NOTE.empty,
        }),
      ),
    );
    controls.append(more);
  }
  controls.append(panel);
}

/** The edit panel: the schema's form filled in with the proposed args, or the args as JSON without a schema. */
function fillEdit(
  holder: HTMLElement,
  record: InteractionRecord,
  args: Record<string, unknown>,
  deps: ReviewDeps,
): void {
  holder.append(el('p', 'review-panel-note', 'Change the arguments, then send the edited call.'));
  if (record.schema !== null) {
    deps.showForm(record.schema, {
      holder,
      values: editPrefill(record.schema, args),
      submitLabel: 'Send edited call',
      toAnswer: (value) => ({ decision: 'edit', args: value }),
      fieldPrefix: 'args.',
    });
    return;
  }
  const editor = textAnswer(
    `${deps.id}-args`,
    'Arguments (JSON)',
    (text) => {
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        deps.error.textContent = 'Enter the arguments as valid JSON.';
        return Promise.resolve();
      }
      return deps.sendPlain({ decision: 'edit', args: value });
    },
    deps.error,
    { json: true, submitLabel: 'Send edited call', emptyMessage: 'Enter the arguments first.' },
  );
  const area = editor.querySelector('textarea');
  if (area !== null) {
    area.value = JSON.stringify(args, null, 2);
    area.rows = Math.min(12, Math.max(4, area.value.split('\n').length));
  }
  holder.append(editor);
}
