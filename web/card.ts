/**
 * One pending question as a card: who asked and when, the question, its media above the answer controls, and the
 * controls its format calls for. Questions and media come from untrusted askers, so every text goes in through
 * `textContent` and the only HTML used is `renderFormHtml`'s, which escapes everything itself.
 */
import type { InteractionRecord, MediaItem } from '../src/core/types.js';
import type { FieldViolation } from '../forms/refusal.js';
import { renderFormHtml } from '../forms/render-html.js';
import type { ApiError } from './api.js';
import { enhanceForm, type SubmitOutcome } from './enhance.js';
import { renderHistory, type TrailLoader } from './history.js';
import { button, buttonRow, el, textAnswer } from './controls.js';
import { renderReviewControls } from './review.js';
import { DECISION_LABELS, cut, reviewAnswerOf } from '../forms/review-view.js';

export type AnswerOutcome =
  | { kind: 'answered' }
  | { kind: 'already_answered' }
  | { kind: 'gone'; message: string }
  | { kind: 'refused'; field?: string; message: string; errors?: FieldViolation[] }
  | { kind: 'error'; message: string };

/** A 400 from an answer door as a refusal: its first field and message, and every violation when it lists them. */
export function refusedOutcome(error: ApiError): AnswerOutcome {
  const outcome: AnswerOutcome = { kind: 'refused', message: error.message };
  if (error.field !== undefined) outcome.field = error.field;
  if (error.errors !== undefined) outcome.errors = error.errors;
  return outcome;
}

/** How a form is shown on a card: where, filled with what, and how its value becomes the answer. */
interface FormOptions {
  holder?: HTMLElement;
  values?: Record<string, unknown>;
  submitLabel?: string;
  toAnswer?(value: unknown): unknown;
  fieldPrefix?: string;
}

export interface CardOptions {
  answer(id: string, value: unknown): Promise<AnswerOutcome>;
  /** The card's answer was taken (by us or elsewhere): the list removes it, after a moment when there is a note. */
  done(id: string, note?: string): void;
  /** Show "also on <channel>" on a channel question. Default true (the inbox); the web chat passes false. */
  showChannel?: boolean;
  /** Loads the question's audit trail when its history is opened (history.ts); absent: the record's summary only. */
  loadTrail?: TrailLoader;
}

/** An answer in a few words: Yes/No, the chosen or written text (cut), or what kind of thing was sent. */
export function answerSummary(record: Pick<InteractionRecord, 'answer_format'>, answer: unknown): string {
  if (typeof answer === 'boolean') return answer ? 'Yes' : 'No';
  if (typeof answer === 'string') return answer.length > 80 ? `“${answer.slice(0, 79)}…”` : `“${answer}”`;
  if (record.answer_format === 'review') {
    const decided = reviewAnswerOf(answer);
    if (decided !== null) {
      const label = DECISION_LABELS[decided.decision];
      return 'message' in decided && decided.message !== undefined ? `${label}: “${cut(decided.message, 80)}”` : label;
    }
  }
  return record.answer_format === 'form' ? 'the form' : 'a payload';
}

/** "3 min ago", short enough for a phone. */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/** Only these URL forms ever reach an `src` or `href`: the server checks media too, this is the second lock. */
function safeUrl(item: MediaItem): string | null {
  let url: URL;
  try {
    url = new URL(item.url);
  } catch {
    return null;
  }
  if (item.kind === 'image') {
    if (url.protocol === 'https:' || /^data:image\/[\w.+-]+;base64,/i.test(item.url)) return item.url;
    return null;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? item.url : null;
}

const KIND_LABEL: Record<MediaItem['kind'], string> = {
  image: 'Image',
  document: 'Document',
  video: 'Video',
  audio: 'Audio',
  link: 'Link',
};

function renderMedia(items: MediaItem[]): HTMLElement {
  const box = el('div', 'media');
  for (const item of items) {
    const url = safeUrl(item);
    if (url === null) continue;
    if (item.kind === 'image') {
      const figure = el('figure', 'media-image');
      const img = el('img');
      img.src = url;
      img.alt = item.caption ?? '';
      img.loading = 'lazy';
      img.referrerPolicy = 'no-referrer';
      figure.append(img);
      if (item.caption !== undefined && item.caption !== '') figure.append(el('figcaption', undefined, item.caption));
      box.append(figure);
    } else {
      const link = el('a', `media-link media-${item.kind}`);
      link.href = url;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.append(el('span', 'media-kind', KIND_LABEL[item.kind]));
      link.append(
        el(
          'span',
          'media-caption',
          item.caption !== undefined && item.caption !== '' ? item.caption : new URL(url).host,
        ),
      );
      box.append(link);
    }
  }
  return box;
}

function domId(id: string): string {
  return `q-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function renderCard(record: InteractionRecord, options: CardOptions): HTMLLIElement {
  const card = el('li', 'card');
  card.dataset['id'] = record.id;
  card.dataset['format'] = record.answer_format;
  const questionId = `${domId(record.id)}-question`;
  card.setAttribute('aria-labelledby', questionId);

  const meta = el('div', 'card-meta');
  if (record.group_id !== null) meta.append(el('span', 'card-group', record.group_id));
  meta.append(el('span', 'card-asker', `asked by ${record.asked_by}`));
  const time = el('time', 'card-age', age(record.created_at));
  time.dateTime = record.created_at;
  time.title = new Date(record.created_at).toLocaleString();
  meta.append(time);
  // In the inbox, a channel question says where else it went — every surface of a question asked on several — and
  // the web chat, which is one of those surfaces, says nothing.
  if (record.channel !== null && options.showChannel !== false)
    meta.append(el('span', 'card-channel', `also on ${surfacesText(record)}`));
  card.append(meta);

  const question = el('p', 'question', record.question);
  question.id = questionId;
  card.append(question);
  if (record.media !== null && record.media.length > 0) card.append(renderMedia(record.media));

  const controls = el('div', `controls controls-${record.answer_format}`);
  const error = el('p', 'control-error');
  error.setAttribute('role', 'alert');
  const note = el('p', 'card-note');
  note.setAttribute('role', 'status');
  card.append(controls, error, note, renderHistory(record, options.loadTrail));

  /** Sends one answer, locking the card meanwhile; returns the refusal for the caller to place. */
  const send = async (value: unknown): Promise<AnswerOutcome> => {
    card.setAttribute('aria-busy', 'true');
    error.textContent = '';
    const outcome = await options.answer(record.id, value);
    card.removeAttribute('aria-busy');
    switch (outcome.kind) {
      case 'answered':
        options.done(record.id, `You answered ${answerSummary(record, value)}.`);
        break;
      case 'already_answered':
        options.done(record.id, 'Already answered elsewhere.');
        break;
      case 'gone':
        options.done(record.id, outcome.message);
        break;
      default:
        break;
    }
    return outcome;
  };
  /** For the non-form controls: any refusal shows under the controls. */
  const sendPlain = async (value: unknown): Promise<void> => {
    const outcome = await send(value);
    if (outcome.kind === 'refused' || outcome.kind === 'error') error.textContent = outcome.message;
  };

  /**
   * The form of a schema (a form question, an external one with a pinned payload, a review's edit), its refusals
   * under fields. A review wraps the form's value (`toAnswer`) and its refusals name `args.<field>` (`fieldPrefix`).
   */
  const showForm = (schema: NonNullable<InteractionRecord['schema']>, options: FormOptions = {}): void => {
    const holder = el('div', 'form-holder');
    holder.innerHTML = renderFormHtml(schema, {
      idPrefix: domId(record.id),
      submitLabel: options.submitLabel ?? 'Send',
      omitTitle: true,
      ...(options.values === undefined ? {} : { values: options.values }),
    });
    (options.holder ?? controls).append(holder);
    const unprefix = (field: string): string => {
      const prefix = options.fieldPrefix ?? '';
      if (prefix === '') return field;
      return field.startsWith(prefix) ? field.slice(prefix.length) : field === prefix.slice(0, -1) ? '' : field;
    };
    for (const form of holder.querySelectorAll<HTMLFormElement>('form')) {
      enhanceForm(form, {
        onSubmit: async (value) => {
          const outcome = await send(options.toAnswer === undefined ? value : options.toAnswer(value));
          if (outcome.kind === 'refused') {
            const refusal: SubmitOutcome = { ok: false, message: outcome.message };
            if (outcome.field !== undefined) refusal.field = unprefix(outcome.field);
            if (outcome.errors !== undefined)
              refusal.errors = outcome.errors.map((e) => ({ ...e, field: unprefix(e.field) }));
            return refusal;
          }
          if (outcome.kind === 'error') return { ok: false, message: outcome.message };
          return { ok: true };
        },
      });
    }
  };

  switch (record.answer_format) {
    case 'review':
      renderReviewControls(record, controls, {
        id: domId(record.id),
        error,
        sendPlain,
        showForm: (schema, options) => showForm(schema, options),
      });
      break;
    case 'confirm':
      controls.append(
        buttonRow([button('Yes', 'primary', () => sendPlain(true)), button('No', 'secondary', () => sendPlain(false))]),
      );
      break;
    case 'select':
      controls.append(
        buttonRow((record.choices ?? []).map((choice) => button(choice, 'choice', () => sendPlain(choice)))),
      );
      break;
    case 'text':
      controls.append(textAnswer(`${domId(record.id)}-text`, 'Your answer', (text) => sendPlain(text), error));
      break;
    case 'form':
      showForm(record.schema ?? { type: 'object', properties: {} });
      break;
    case 'external':
      if (record.verifier !== null) {
        // Bound to a verifier: only the signed callback may answer, so the inbox shows it and offers nothing.
        card.classList.add('read-only');
        controls.append(
          el(
            'p',
            'external-note',
            'Answered by the outside system: this question waits for a callback signed for the ' +
              `${record.verifier.name} verifier, and cannot be answered here.`,
          ),
        );
        break;
      }
      if (record.schema !== null) {
        // A pinned payload schema is a form like any other: the same fields its callback page shows.
        controls.append(
          el('p', 'external-note', 'This question is answered on an outside surface; you may answer it here instead.'),
        );
        showForm(record.schema);
        break;
      }
      controls.append(
        el(
          'p',
          'external-note',
          'This question is answered on an outside surface (a signed callback). To answer it here instead, enter the payload as JSON.',
        ),
        textAnswer(
          `${domId(record.id)}-json`,
          'Payload (JSON)',
          (text) => {
            let value: unknown;
            try {
              value = JSON.parse(text) as unknown;
            } catch {
              error.textContent = 'Enter valid JSON.';
              return Promise.resolve();
            }
            return sendPlain(value);
          },
          error,
          { json: true },
        ),
      );
      break;
  }
  return card;
}

/** Where a question went: its channel, or each surface (channel and recipient) of one asked on several. */
function surfacesText(record: Pick<InteractionRecord, 'channel' | 'deliver'>): string {
  if (record.deliver === undefined || record.deliver.length < 2) return record.channel ?? '';
  return record.deliver.map((s) => (s.recipient === null ? s.channel : `${s.channel} (${s.recipient})`)).join(', ');
}
