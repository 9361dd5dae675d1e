/**
 * The controls every card is built from, whatever its format: an element with its class and text, a button, a row of
 * buttons and a text box with its Send button. One copy, so a confirm's Yes and No, a select's choices and a review's
 * decisions look and behave alike (web/card.ts, web/review.ts). Every text goes in through `textContent`.
 */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A button of a card (`kind`: primary, secondary, danger, choice, link). When `onClick` sends (returns a promise),
 * every button of its row is off until the send is over, so one press cannot send twice; a button that only opens
 * something (returns nothing) locks nothing.
 */
export function button(label: string, kind: string, onClick: () => Promise<void> | void): HTMLButtonElement {
  const b = el('button', `btn btn-${kind}`, label);
  b.type = 'button';
  b.addEventListener('click', () => {
    const sending = onClick();
    if (sending === undefined) return;
    const group = b.parentElement;
    const all = group === null ? [b] : [...group.querySelectorAll('button')];
    for (const other of all) other.disabled = true;
    void sending.finally(() => {
      // A card that closed meanwhile (answered) keeps its controls off while its note shows.
      if (b.closest('.closed') === null) for (const other of all) other.disabled = false;
    });
  });
  return b;
}

/** The buttons of one answer, side by side (wrapping on a phone). */
export function buttonRow(buttons: readonly HTMLButtonElement[]): HTMLDivElement {
  const row = el('div', 'button-row');
  row.append(...buttons);
  return row;
}

export interface TextAnswerOptions {
  /** The text box holds JSON: monospace, no spell check. */
  json?: boolean;
  /** The Send button's label. Default "Send". */
  submitLabel?: string;
  /** The Send button's kind (button()). Default primary. */
  submitKind?: string;
  placeholder?: string;
  /** What to say when Send is pressed with nothing written. */
  emptyMessage?: string;
  maxLength?: number;
}

/** A textarea with a Send button; Ctrl/Cmd+Enter sends too. */
export function textAnswer(
  id: string,
  label: string,
  onSend: (text: string) => Promise<void>,
  error: HTMLElement,
  options: TextAnswerOptions = {},
): HTMLElement {
  const json = options.json === true;
  const wrap = el('div', 'text-answer');
  const lab = el('label', 'visually-hidden', label);
  lab.htmlFor = id;
  const area = el('textarea', json ? 'ag-json' : undefined);
  area.id = id;
  area.rows = json ? 4 : 3;
  area.placeholder = options.placeholder ?? (json ? '{"…": …}' : 'Write your answer');
  if (options.maxLength !== undefined) area.maxLength = options.maxLength;
  if (json) area.spellcheck = false;
  const submit = el('button', `btn btn-${options.submitKind ?? 'primary'}`, options.submitLabel ?? 'Send');
  submit.type = 'button';
  const go = (): void => {
    if (area.value.trim() === '') {
      error.textContent = options.emptyMessage ?? (json ? 'Enter the payload first.' : 'Write an answer first.');
      area.focus();
      return;
    }
    submit.disabled = true;
    void onSend(area.value).finally(() => {
      submit.disabled = false;
    });
  };
  submit.addEventListener('click', go);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) go();
  });
  wrap.append(lab, area, submit);
  return wrap;
}
