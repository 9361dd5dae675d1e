/**
 * Brings a form rendered by `forms/render-html.ts` to life in the browser: shows and hides `visibleWhen` fields as
 * the person types (a hidden field's controls are disabled, so they are neither required nor sent), checks each
 * field on blur and on submit, writes the sentence in the field's error slot and keeps a broken form from sending
 * anything. With `onSubmit` the answer is decoded and handed over (the inbox, the web chat); without it the native
 * form-encoded POST goes ahead (the callback page).
 */
import { checkField, ruleFromAttributes, type FieldInput } from '../forms/check.js';
import { decodeFormFields, TZ_OFFSET_ENTRY } from '../forms/decode.js';
import { matchesEquals, type Schema } from '../forms/fields.js';
import { MESSAGES } from '../forms/messages.js';
import { ANSWER_AS_A_WHOLE, type FieldViolation, generalSentence, refusalSentence } from '../forms/refusal.js';

/** A refusal names one field and its message, and, from an answer door, every violation in `errors`. */
export type SubmitOutcome = { ok: true } | { ok: false; field?: string; message: string; errors?: FieldViolation[] };

export interface EnhanceOptions {
  /**
   * Receives the decoded answer. A refusal that lists its violations shows each under its own field, in the words
   * the callback page uses (forms/refusal.ts), and those no shown field holds at the top; one without the list shows
   * its message under the named field, or at the top.
   */
  onSubmit?(value: Record<string, unknown>): Promise<SubmitOutcome>;
  /** The schema the form was rendered from; by default read from the form's `data-schema`. */
  schema?: Schema;
}

export interface EnhancedForm {
  /** Checks every visible field, showing the sentences; true when all pass. */
  check(): boolean;
  /** Shows a message under a field (dotted name, JSON pointer or `(root)`), or at the top when none matches. */
  showError(field: string | undefined, message: string): void;
}

const FIELD = '[data-field]';
const CONTROLS = 'input, select, textarea';

function wrappers(form: HTMLFormElement): HTMLElement[] {
  return [...form.querySelectorAll<HTMLElement>(FIELD)];
}

/** The controls that belong to this field itself (not to a nested field inside a group). */
function ownControls(wrapper: HTMLElement): Array<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement> {
  const name = wrapper.dataset['field'];
  return [...wrapper.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(CONTROLS)].filter(
    (c) => c.name === name,
  );
}

/** What the field holds right now, as the checks see it. */
export function fieldInput(wrapper: HTMLElement): FieldInput {
  const controls = ownControls(wrapper);
  switch (wrapper.dataset['kind']) {
    case 'checkbox':
      return controls.some((c) => c instanceof HTMLInputElement && c.checked);
    case 'checkboxes':
      return controls.filter((c) => c instanceof HTMLInputElement && c.checked).map((c) => c.value);
    case 'radio':
      return controls.find((c) => c instanceof HTMLInputElement && c.checked)?.value ?? '';
    default:
      return controls[0]?.value ?? '';
  }
}

function errorSlot(wrapper: HTMLElement): HTMLElement | null {
  return wrapper.querySelector<HTMLElement>(':scope > .field-error');
}

function setError(wrapper: HTMLElement, message: string | null): void {
  const slot = errorSlot(wrapper);
  if (slot !== null) slot.textContent = message ?? '';
  for (const c of ownControls(wrapper)) {
    if (message === null) c.removeAttribute('aria-invalid');
    else c.setAttribute('aria-invalid', 'true');
  }
  wrapper.classList.toggle('has-error', message !== null);
}

function checkWrapper(wrapper: HTMLElement): string | null {
  if (isHidden(wrapper)) return null;
  return checkField(
    ruleFromAttributes((n) => wrapper.getAttribute(n)),
    fieldInput(wrapper),
  );
}

function isHidden(wrapper: HTMLElement): boolean {
  return wrapper.closest('[hidden]') !== null;
}

/**
 * Re-evaluates every `visibleWhen`. A field controlled by a hidden field is hidden too, so passes repeat until
 * nothing changes (a chain settles in at most as many passes as there are fields).
 */
function updateVisibility(form: HTMLFormElement): void {
  const all = wrappers(form);
  const byName = new Map(all.map((w) => [w.dataset['field'] ?? '', w]));
  for (let pass = 0, changed = true; changed && pass <= all.length; pass++) {
    changed = false;
    for (const wrapper of all) {
      const raw = wrapper.dataset['visibleWhen'];
      if (raw === undefined) continue;
      let shown = true;
      try {
        const vw = JSON.parse(raw) as { field?: unknown; equals?: unknown };
        const controller = typeof vw.field === 'string' ? byName.get(vw.field) : undefined;
        shown = controller !== undefined && !isHidden(controller) && matchesEquals(fieldInput(controller), vw.equals);
      } catch {
        shown = true; // A malformed condition should not hide a question from the person.
      }
      if (wrapper.hidden === !shown) continue;
      wrapper.hidden = !shown;
      changed = true;
      if (!shown) setError(wrapper, null);
    }
  }
  // Disabled controls are skipped by FormData and by the native submit, so a hidden field is never sent.
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(CONTROLS)) {
    const owner = control.closest<HTMLElement>(FIELD);
    if (owner !== null) control.disabled = isHidden(owner);
  }
}

/** Maps a server's field (`address.city`, `/address/city`, `tags/0`, `(root)`) onto a field wrapper of the form. */
function findWrapper(form: HTMLFormElement, field: string | undefined, message: string): HTMLElement | null {
  const names = new Map(wrappers(form).map((w) => [w.dataset['field'] ?? '', w]));
  let path = (field ?? '')
    .replace(/^#?\//, '')
    .replace(/\//g, '.')
    .replace(/\[(\d+)\]/g, '.$1');
  // ajv reports a missing property at its parent object; the name is in the message.
  const missing = /required property '([^']+)'/.exec(message)?.[1];
  if (missing !== undefined) path = path === '' || path === '(root)' ? missing : `${path}.${missing}`;
  const parts = path.split('.').filter((p) => p !== '' && p !== '(root)');
  for (let n = parts.length; n > 0; n--) {
    const hit = names.get(parts.slice(0, n).join('.'));
    if (hit !== undefined && !isHidden(hit)) return hit;
  }
  return null;
}

function focusField(wrapper: HTMLElement): void {
  const control = ownControls(wrapper).find((c) => !c.disabled);
  control?.focus();
  if (typeof wrapper.scrollIntoView === 'function') wrapper.scrollIntoView({ block: 'center', behavior: 'smooth' });
}

/** The browser's UTC offset as `+02:00`, for datetime-local values (see forms/decode.ts). */
function tzOffset(): string {
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function readSchema(form: HTMLFormElement, given: Schema | undefined): Schema {
  if (given !== undefined) return given;
  const raw = form.dataset['schema'];
  if (raw === undefined)
    throw new Error('enhanceForm: pass options.schema, or render the form with renderFormHtml (it writes data-schema)');
  return JSON.parse(raw) as Schema;
}

export function enhanceForm(form: HTMLFormElement, options: EnhanceOptions = {}): EnhancedForm {
  // Our checks and sentences replace the browser's bubbles, which cannot carry the sender's words.
  form.noValidate = true;
  const topError = form.querySelector<HTMLElement>(':scope > .form-error');
  const submitButton = form.querySelector<HTMLButtonElement>('button[type="submit"], button:not([type])');

  const showError = (field: string | undefined, message: string): void => {
    const wrapper = findWrapper(form, field, message);
    if (wrapper !== null) {
      setError(wrapper, message);
      focusField(wrapper);
    } else if (topError !== null) {
      topError.textContent = message;
    }
  };

  const showRefusal = (refusal: Extract<SubmitOutcome, { ok: false }>): void => {
    const violations = refusal.errors ?? [];
    if (violations.length === 0) {
      showError(refusal.field, refusal.message || MESSAGES.refused);
      return;
    }
    const placed = new Set<HTMLElement>();
    const general: string[] = [];
    for (const violation of violations) {
      const wrapper =
        violation.field === ANSWER_AS_A_WHOLE ? null : findWrapper(form, violation.field, violation.reason);
      if (wrapper === null) {
        const text = generalSentence(violation);
        if (!general.includes(text)) general.push(text);
        continue;
      }
      // A field shows its first violation, as the page's own checks show one sentence at a time.
      if (placed.has(wrapper)) continue;
      placed.add(wrapper);
      const rule = ruleFromAttributes((n) => wrapper.getAttribute(n));
      setError(wrapper, refusalSentence(rule, fieldInput(wrapper), violation.reason));
    }
    if (topError !== null) topError.textContent = general.join(' ');
    const first = wrappers(form).find((w) => placed.has(w));
    if (first !== undefined) focusField(first);
  };

  const check = (): boolean => {
    let first: HTMLElement | null = null;
    for (const wrapper of wrappers(form)) {
      const message = checkWrapper(wrapper);
      setError(wrapper, message);
      if (message !== null && first === null) first = wrapper;
    }
    if (first !== null) focusField(first);
    return first === null;
  };

  const onChange = (event: Event): void => {
    updateVisibility(form);
    // Once a field shows a sentence, clear or update it as the person fixes the value.
    const wrapper = (event.target as Element | null)?.closest<HTMLElement>(FIELD);
    if (wrapper?.classList.contains('has-error')) setError(wrapper, checkWrapper(wrapper));
  };
  form.addEventListener('input', onChange);
  form.addEventListener('change', onChange);

  form.addEventListener('focusout', (event) => {
    const target = event.target as Element | null;
    const wrapper = target?.closest<HTMLElement>(FIELD);
    if (wrapper === null || wrapper === undefined) return;
    // Moving between the options of one group is not leaving the field.
    const next = (event as FocusEvent).relatedTarget as Node | null;
    if (next !== null && wrapper.contains(next)) return;
    // Leaving for Send: the submit check runs on every field in a moment; a sentence shown now could move the
    // button under the press (a long one takes more than the line each field keeps for it).
    if (next !== null && next === submitButton) return;
    const input = fieldInput(wrapper);
    // A blank field is told it is required on submit, not while the person is still finding their way.
    const blank = input === '' || (Array.isArray(input) && input.length === 0);
    if (!blank) setError(wrapper, checkWrapper(wrapper));
  });

  form.addEventListener('submit', (event) => {
    updateVisibility(form);
    if (topError !== null) topError.textContent = '';
    if (!check()) {
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    if (options.onSubmit === undefined) {
      setHiddenEntry(form, TZ_OFFSET_ENTRY, tzOffset());
      return; // The native form-encoded POST goes ahead.
    }
    event.preventDefault();
    const entries: Array<[string, string]> = [];
    new FormData(form).forEach((v, k) => {
      if (typeof v === 'string') entries.push([k, v]);
    });
    entries.push([TZ_OFFSET_ENTRY, tzOffset()]);
    const value = decodeFormFields(readSchema(form, options.schema), entries);
    const onSubmit = options.onSubmit;
    if (submitButton !== null) submitButton.disabled = true;
    form.setAttribute('aria-busy', 'true');
    onSubmit(value)
      .then((outcome) => {
        if (!outcome.ok) showRefusal(outcome);
      })
      .catch((err: unknown) => {
        showError(undefined, err instanceof Error ? err.message : MESSAGES.refused);
      })
      .finally(() => {
        if (submitButton !== null) submitButton.disabled = false;
        form.removeAttribute('aria-busy');
      });
  });

  updateVisibility(form);
  return { check, showError };
}

function setHiddenEntry(form: HTMLFormElement, name: string, value: string): void {
  let input = form.querySelector<HTMLInputElement>(`input[type="hidden"][name="${name}"]`);
  if (input === null) {
    input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    form.append(input);
  }
  input.value = value;
}
