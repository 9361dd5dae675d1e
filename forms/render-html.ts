/**
 * One form renderer for every surface: the server-rendered callback page, the inbox and the web chat all call this,
 * so a form looks and checks the same everywhere. Any object schema renders: properties without a natural control
 * fall back to a JSON textarea. Every string that reaches the page goes through `escapeHtml`.
 *
 * The markup works without script (native form-encoded POST, native `required`), and `web/enhance.ts` adds the
 * live checks, visibleWhen and the sender's sentences on top of it, reading the `data-*` attributes written here.
 */
import { ruleAttributes } from './check.js';
import { formFields, isRecord, valueAt, visibleFields, type Field, type Schema } from './fields.js';

export interface RenderOptions {
  /** The answer so far (e.g. what was posted, re-rendered with its errors); otherwise each property's `default`. */
  values?: Record<string, unknown>;
  /** Messages by dotted field name; `""` or `"(root)"` is shown at the top of the form. */
  errors?: Record<string, string>;
  /** Prefix of every element id, so several forms can live on one page. */
  idPrefix?: string;
  submitLabel?: string;
  /** The form's `action`; absent posts back to the page's own URL, which is what the callback page wants. */
  action?: string;
  /**
   * Leave out the schema's `title` heading: for a surface that already heads the form with the question (an inbox
   * card), where a second heading right under it reads as two titles. The description stays.
   */
  omitTitle?: boolean;
  /**
   * Groups (by dotted name) rendered without their frame and heading, their fields set in the form as if at its top:
   * for a group that is only how the post names its fields (a review's `args.<field>`) under a heading the page
   * already shows, where a framed "Arguments" would title the same thing twice.
   */
  bareGroups?: readonly string[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function attrs(pairs: Array<[string, string | boolean | undefined]>): string {
  return pairs
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`))
    .join('');
}

/** A datetime-local control cannot hold an offset: show the wall-clock part of an RFC 3339 value. */
function toDateTimeLocal(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)/.exec(value);
  return m === null ? value : `${m[1]}T${m[2]}`;
}

function inputType(field: Field): string {
  if (field.rule.kind === 'number') return 'number';
  switch (field.rule.format) {
    case 'email':
      return 'email';
    case 'date':
      return 'date';
    case 'date-time':
      return 'datetime-local';
    case 'uri':
      return 'url';
    default:
      return 'text';
  }
}

interface Ctx {
  prefix: string;
  values: Record<string, unknown>;
  errors: Record<string, string>;
  visible: Set<string>;
  ids: Set<string>;
  bare: ReadonlySet<string>;
}

function idFor(ctx: Ctx, name: string): string {
  const base = `${ctx.prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  let id = base;
  for (let n = 2; ctx.ids.has(id); n++) id = `${base}-${n}`;
  ctx.ids.add(id);
  return id;
}

/** Fills `values` with schema defaults wherever the caller gave nothing. */
function withDefaults(fields: Field[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...values };
  for (const f of fields) {
    if (f.children !== undefined) {
      const inner = isRecord(out[f.key]) ? (out[f.key] as Record<string, unknown>) : {};
      out[f.key] = withDefaults(f.children, inner);
    } else if (out[f.key] === undefined && f.schema['default'] !== undefined) {
      out[f.key] = f.schema['default'];
    }
  }
  return out;
}

/** Renders a complete `<form>` for an object schema. */
export function renderFormHtml(schema: Schema, options: RenderOptions = {}): string {
  const fields = formFields(schema);
  const values = withDefaults(fields, options.values ?? {});
  const ctx: Ctx = {
    prefix: options.idPrefix ?? 'ag',
    values,
    errors: options.errors ?? {},
    visible: visibleFields(schema, values),
    ids: new Set(),
    bare: new Set(options.bareGroups ?? []),
  };
  const formError = ctx.errors[''] ?? ctx.errors['(root)'] ?? '';
  const formErrorId = idFor(ctx, '_form-error');
  const body = fields.map((f) => renderField(f, ctx)).join('');
  const title =
    typeof schema['title'] === 'string' && options.omitTitle !== true
      ? `<h2 class="ag-form-title">${escapeHtml(schema['title'])}</h2>`
      : '';
  const description =
    typeof schema['description'] === 'string'
      ? `<p class="ag-form-description">${escapeHtml(schema['description'])}</p>`
      : '';
  return (
    `<form class="ag-form" method="post" accept-charset="utf-8" data-askgate-form${attrs([
      ['action', options.action],
      ['data-schema', JSON.stringify(schema)],
    ])}>` +
    title +
    description +
    `<p class="form-error" id="${formErrorId}" role="alert">${escapeHtml(formError)}</p>` +
    body +
    `<div class="ag-actions"><button type="submit" class="ag-submit">${escapeHtml(options.submitLabel ?? 'Send')}</button></div>` +
    `</form>`
  );
}

function renderField(field: Field, ctx: Ctx): string {
  const value = valueAt(ctx.values, field.name);
  const error = ctx.errors[field.name] ?? '';
  const id = idFor(ctx, field.name);
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [field.hint !== undefined ? hintId : undefined, errorId].filter(Boolean).join(' ');
  const hidden = !ctx.visible.has(field.name);
  const wrapperAttrs = attrs([
    ['data-field', field.name],
    ...ruleAttributes(field.rule),
    ['data-visible-when', field.visibleWhen !== undefined ? JSON.stringify(field.visibleWhen) : undefined],
    ['hidden', hidden],
  ]);
  const hint = field.hint !== undefined ? `<p class="ag-hint" id="${hintId}">${escapeHtml(field.hint)}</p>` : '';
  const errorSlot = `<p class="field-error" id="${errorId}" role="alert">${escapeHtml(error)}</p>`;
  const marker = field.rule.required ? ' <span class="ag-required" aria-hidden="true">*</span>' : '';
  const label = escapeHtml(field.label) + marker;
  // The native `required` attribute is for the page without script; a field that can be hidden is left to the
  // enhancer, since a required control the person cannot see would block a native submit.
  const nativeRequired = field.rule.required && field.visibleWhen === undefined;
  const common: Array<[string, string | boolean | undefined]> = [
    ['aria-describedby', describedBy],
    ['aria-invalid', error !== '' ? 'true' : undefined],
    ['disabled', hidden],
  ];

  switch (field.rule.kind) {
    case 'group': {
      const children = (field.children ?? []).map((c) => renderField(c, ctx)).join('');
      // A bare group keeps its wrapper (the enhancer finds its fields and its error slot by data-field).
      if (ctx.bare.has(field.name))
        return `<div class="ag-field ag-group-bare"${wrapperAttrs}>${hint}${errorSlot}${children}</div>`;
      return `<fieldset class="ag-field ag-group"${wrapperAttrs}><legend>${label}</legend>${hint}${errorSlot}${children}</fieldset>`;
    }
    case 'radio':
    case 'checkboxes': {
      const type = field.rule.kind === 'radio' ? 'radio' : 'checkbox';
      const chosen = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
      const options = (field.options ?? [])
        .map((option, i) => {
          const optionId = `${id}-${i}`;
          const input = `<input${attrs([
            ['type', type],
            ['id', optionId],
            ['name', field.name],
            ['value', String(option)],
            ['checked', chosen.includes(String(option))],
            ['required', type === 'radio' && nativeRequired],
            ...common,
          ])}>`;
          return `<div class="ag-option">${input}<label for="${optionId}">${escapeHtml(String(option))}</label></div>`;
        })
        .join('');
      return (
        `<fieldset class="ag-field ag-choices"${wrapperAttrs}><legend>${label}</legend>${hint}` +
        `<div class="ag-options">${options}</div>${errorSlot}</fieldset>`
      );
    }
    case 'checkbox': {
      const input = `<input${attrs([
        ['type', 'checkbox'],
        ['id', id],
        ['name', field.name],
        ['value', 'true'],
        ['checked', value === true || value === 'true'],
        ...common,
      ])}>`;
      return (
        `<div class="ag-field ag-checkbox"${wrapperAttrs}><div class="ag-option">${input}` +
        `<label for="${id}">${label}</label></div>${hint}${errorSlot}</div>`
      );
    }
    case 'const':
      // A pinned value is shown, not asked: decode puts it back in the answer.
      return `<div class="ag-field ag-const"${wrapperAttrs}><span class="ag-label">${label}</span>${hint}<output id="${id}">${escapeHtml(
        JSON.stringify(field.schema['const']),
      )}</output>${errorSlot}</div>`;
    default:
      return `<div class="ag-field"${wrapperAttrs}><label for="${id}">${label}</label>${hint}${renderControl(
        field,
        value,
        id,
        nativeRequired,
        common,
      )}${errorSlot}</div>`;
  }
}

function renderControl(
  field: Field,
  value: unknown,
  id: string,
  nativeRequired: boolean,
  common: Array<[string, string | boolean | undefined]>,
): string {
  const base: Array<[string, string | boolean | undefined]> = [
    ['id', id],
    ['name', field.name],
    ['required', nativeRequired],
    ...common,
  ];
  switch (field.rule.kind) {
    case 'select': {
      const current = value === undefined ? '' : String(value);
      const placeholder = `<option value=""${current === '' ? ' selected' : ''}>Choose…</option>`;
      const options = (field.options ?? [])
        .map(
          (o) =>
            `<option${attrs([
              ['value', String(o)],
              ['selected', String(o) === current],
            ])}>${escapeHtml(String(o))}</option>`,
        )
        .join('');
      return `<select${attrs(base)}>${placeholder}${options}</select>`;
    }
    case 'json': {
      const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);
      const json = attrs([
        ...base,
        ['class', 'ag-json'],
        ['rows', '4'],
        ['spellcheck', 'false'],
        ['placeholder', 'JSON'],
      ]);
      return `<textarea${json}>${escapeHtml(text)}</textarea>`;
    }
    case 'textarea':
      return `<textarea${attrs([
        ...base,
        ['rows', '4'],
        ['minlength', field.rule.minLength?.toString()],
        ['maxlength', field.rule.maxLength?.toString()],
      ])}>${escapeHtml(value === undefined ? '' : String(value))}</textarea>`;
    default:
      return `<input${attrs([...base, ...inputAttrs(field, value)])}>`;
  }
}

function inputAttrs(field: Field, value: unknown): Array<[string, string | boolean | undefined]> {
  const type = inputType(field);
  const text = value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value);
  const out: Array<[string, string | boolean | undefined]> = [
    ['type', type],
    ['value', type === 'datetime-local' ? toDateTimeLocal(text) : text],
  ];
  if (type === 'number') {
    out.push(
      ['step', field.rule.type === 'integer' ? '1' : 'any'],
      ['inputmode', field.rule.type === 'integer' ? 'numeric' : 'decimal'],
    );
    out.push(['min', field.rule.min], ['max', field.rule.max]);
  } else if (type === 'date') {
    out.push(['min', field.rule.min], ['max', field.rule.max]);
  } else if (type === 'datetime-local') {
    out.push(
      ['min', field.rule.min && toDateTimeLocal(field.rule.min)],
      ['max', field.rule.max && toDateTimeLocal(field.rule.max)],
    );
  } else {
    out.push(['minlength', field.rule.minLength?.toString()], ['maxlength', field.rule.maxLength?.toString()]);
  }
  if (type === 'email') out.push(['autocomplete', 'email'], ['inputmode', 'email']);
  return out;
}
