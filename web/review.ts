/**
 * A review's card body, for the inbox and the web chat: the proposed action shown readably (its name, description and
 * arguments as key/value rows), approve and reject as one press each, edit opening the form filled in with the
 * proposed arguments (only the fields the schema names; a JSON field of them when there is no schema), and respond
 * taking the person's words. Every text goes in through `textContent`; the only HTML is the forms renderers'
 * (`renderFormHtml`, `renderActionHtml`), which escape everything themselves.
 */
import type { InteractionRecord, JsonSchema } from '../src/core/types.js';
import { renderActionHtml } from '../forms/review-html.js';
import { DECISION_LABELS, editPrefill, type ReviewDecision } from '../forms/review-view.js';

/** What the card lends the review: its ways to send, and its own controls (so both look alike). */
export interface ReviewDeps {
  /** The DOM id prefix of this card. */
  id: string;
  error: HTMLElement;
  /** Sends an answer, showing a refusal under the controls. */
  sendPlain(value: unknown): Promise<void>;
  button(label: string, kind: string, onClick: () => Promise<void>): HTMLButtonElement;
  textAnswer(
    id: string,
    label: string,
    onSend: (text: string) => Promise<void>,
    error: HTMLElement,
    json?: boolean,
  ): HTMLElement;
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

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The proposed action as a block (forms/review-html.ts, which escapes every string). */
export function renderAction(action: NonNullable<InteractionRecord['action']>): HTMLElement {
  const box = el('div', 'review-action-holder');
  box.innerHTML = renderActionHtml(action);
  return box;
}

/** The review's controls in `controls`: the action, then a button per decision offered, then the open panel. */
export function renderReviewControls(record: InteractionRecord, controls: HTMLElement, deps: ReviewDeps): void {
  const action = record.action;
  if (action === undefined) return;
  controls.append(renderAction(action));
  const buttons = el('div', 'review-buttons');
  const panel = el('div', 'review-panel');
  panel.hidden = true;
  const decisions: ReviewDecision[] = record.decisions ?? ['approve', 'reject'];
  const toggles: HTMLButtonElement[] = [];

  /** Opens one panel (edit or respond) under the buttons; pressing its button again closes it. */
  const toggle = (decision: 'edit' | 'respond', fill: (holder: HTMLElement) => void): HTMLButtonElement => {
    const b = el('button', 'btn btn-secondary', DECISION_LABELS[decision]);
    b.type = 'button';
    b.setAttribute('aria-expanded', 'false');
    b.dataset['decision'] = decision;
    b.addEventListener('click', () => {
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
    toggles.push(b);
    return b;
  };

  for (const decision of decisions) {
    switch (decision) {
      case 'approve':
        buttons.append(deps.button('Approve', 'primary', () => deps.sendPlain({ decision: 'approve' })));
        break;
      case 'reject':
        buttons.append(deps.button('Reject', 'danger', () => deps.sendPlain({ decision: 'reject' })));
        break;
      case 'edit':
        buttons.append(toggle('edit', (holder) => fillEdit(holder, record, action.args, deps)));
        break;
      case 'respond':
        buttons.append(
          toggle('respond', (holder) => {
            holder.append(
              el('p', 'review-panel-note', 'Your words go back to the agent instead of a yes or no.'),
              deps.textAnswer(
                `${deps.id}-respond`,
                'Your response',
                (message) => deps.sendPlain({ decision: 'respond', message }),
                deps.error,
              ),
            );
          }),
        );
        break;
    }
  }
  controls.append(buttons, panel);
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
  const editor = deps.textAnswer(
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
    true,
  );
  const area = editor.querySelector('textarea');
  if (area !== null) {
    area.value = JSON.stringify(args, null, 2);
    area.rows = Math.min(12, Math.max(4, area.value.split('\n').length));
  }
  holder.append(editor);
}
