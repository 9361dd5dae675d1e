/**
 * The HTML the public callback door shows a person: the question's form (or the confirm page of an external
 * question), and the pages after it (answered, already answered, expired, not available).
 *
 * Everything the page shows comes from an untrusted asker or an untrusted poster, so every string goes through
 * `escapeHtml`; the only script is this origin's `/assets/web/enhance-auto.js` under a strict policy.
 */
import { escapeHtml, renderFormHtml } from '../../forms/render-html.js';
import type { InteractionRecord, JsonSchema } from '../core/types.js';
import { formatOf } from '../core/formats/index.js';
import { reviewBody } from './review-page.js';

/**
 * The page's policy: nothing from anywhere but this origin, no inline script or style, forms post here only.
 * frame-ancestors lets Telegram's web client frame the page (its mobile apps open it in a webview, not a frame).
 */
export const CALLBACK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'self' https://web.telegram.org",
].join('; ');

/** Headers on every HTML response of the door. `no-referrer` matters: the page's URL holds the ticket. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CALLBACK_CSP,
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
});

/** This page's own stylesheet, served at `CALLBACK_CSS_PATH` (the shared form styles come from forms.css). */
export const CALLBACK_CSS_PATH = '/assets/callback/page.css';
export const CALLBACK_CSS = `body{margin:0;background:var(--ag-bg,#fff);color:var(--ag-text,#1b1f24);
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:36rem;margin:0 auto;padding:1rem 1rem 2rem}
.cb-question{font-size:1.2rem;margin:0 0 .25rem;white-space:pre-wrap;overflow-wrap:anywhere}
.cb-outcome{font-size:1.1rem;margin:1.5rem 0 .5rem}
.cb-note{color:var(--ag-muted,#5d6670);margin:0}
.cb-asker{margin:0 0 1rem;font-size:.9rem}
.cb-choices{display:flex;flex-wrap:wrap;gap:.75rem}
.cb-choices button{min-height:44px;min-width:6rem}
.al-card{margin:1.25rem 0 1rem;padding:1rem 1rem 1.1rem;border:1px solid var(--ag-border,#cfd5dc);
border-radius:var(--ag-radius,10px);background:var(--ag-surface,#f6f7f9)}
.al-card p{margin:0 0 .5rem}
.al-choice{font-size:1.35rem;font-weight:600;margin:0 0 1rem;overflow-wrap:anywhere}
.al-card form{margin:0}
.al-card .ag-submit{width:100%;min-height:44px}
@media (min-width:600px){.al-card .ag-submit{width:auto}}
.cb-outcome~.cb-note+.cb-note{margin-top:.5rem}
.cb-review-decide .review-buttons button{min-height:44px;min-width:7rem;flex:1 1 0;width:auto}
@media (min-width:600px){.cb-review-decide .review-buttons button{flex:0 0 auto}}
.cb-reject{font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:var(--ag-radius,10px);
background:var(--ag-bg,#fff);color:var(--ag-error,#b3261e);border:1px solid var(--ag-error,#b3261e);cursor:pointer}
.cb-review-panel{margin:1rem 0 0;border-top:1px solid var(--ag-border,#cfd5dc);padding-top:.75rem}
.cb-review-panel summary{cursor:pointer;font-weight:600;padding:.6rem 0}
.cb-review-reject .ag-submit{background:var(--ag-bg,#fff);color:var(--ag-error,#b3261e);border:1px solid var(--ag-error,#b3261e)}
`;

/** The page around a body: this door's stylesheets, and this origin's enhancement script when asked for. */
export function layout(title: string, body: string, withScript: boolean): string {
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="referrer" content="no-referrer">\n<meta name="color-scheme" content="light dark">\n' +
    `<title>${escapeHtml(title)} · askgate</title>\n<link rel="icon" href="data:,">\n` +
    `<link rel="stylesheet" href="/assets/web/forms.css">\n<link rel="stylesheet" href="${CALLBACK_CSS_PATH}">\n` +
    '<link rel="stylesheet" href="/assets/web/review.css">\n' +
    (withScript ? '<script type="module" src="/assets/web/enhance-auto.js"></script>\n' : '') +
    `</head>\n<body>\n<main>\n${body}\n</main>\n</body>\n</html>\n`
  );
}

function outcomePage(title: string, heading: string, note: string, question: string | null): string {
  const q = question === null ? '' : `<p class="cb-question">${escapeHtml(question)}</p>`;
  return layout(
    title,
    `<h1 class="cb-outcome" role="status">${escapeHtml(heading)}</h1>${q}<p class="cb-note">${escapeHtml(note)}</p>`,
    false,
  );
}

/**
 * Who asks and by when, under the question: a person deciding whether to answer a link should know both. The time is
 * UTC, written out, since the page runs no script to show it in the reader's zone.
 */
export function whoAndWhen(record: Pick<InteractionRecord, 'asked_by' | 'deadline_at'>): string {
  const deadline = new Date(record.deadline_at);
  const when = Number.isNaN(deadline.getTime())
    ? ''
    : ` · answer by <time datetime="${escapeHtml(deadline.toISOString())}">${escapeHtml(
        `${deadline.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      )}</time>`;
  return `<p class="cb-note cb-asker">Asked by ${escapeHtml(record.asked_by)}${when}</p>`;
}

/** What the form shows again after the server refused a submit. */
export interface Refusal {
  values: Record<string, unknown>;
  /** Messages by dotted field name; `""` is shown at the top of the form. */
  errors: Record<string, string>;
}

/** The answer page of a question: its form (any format) with the question as the heading. */
export function questionPage(record: InteractionRecord, refusal: Refusal | null = null): string {
  const heading = `<h1 class="cb-question">${escapeHtml(record.question)}</h1>${whoAndWhen(record)}`;
  const format = formatOf(record.answer_format);
  const { controls } = format.render;
  if (controls === 'buttons') {
    const error = refusal?.errors[''] ?? refusal?.errors['answer'] ?? '';
    // Two submit buttons carry the decision; no script is needed to answer a yes/no question.
    const form =
      `<form class="ag-form" method="post" accept-charset="utf-8"><p class="form-error" role="alert">${escapeHtml(error)}</p>` +
      '<div class="cb-choices"><button type="submit" name="answer" value="true">Yes</button>' +
      '<button type="submit" name="answer" value="false">No</button></div></form>';
    return layout('Answer', heading + form, false);
  }
  if (controls === 'review') return layout('Review', heading + reviewBody(record, refusal), true);
  if (controls === 'external' && record.schema === null) {
    const error = refusal?.errors[''] ?? '';
    // The confirm page of an external question: Confirm posts {"confirmed": true} (see docs/callback.md).
    const form =
      `<form class="ag-form" method="post" accept-charset="utf-8"><p class="form-error" role="alert">${escapeHtml(error)}</p>` +
      '<input type="hidden" name="confirmed" value="true">' +
      '<div class="ag-actions"><button type="submit" class="ag-submit">Confirm</button></div></form>';
    return layout('Confirm', heading + form, false);
  }
  const schema: JsonSchema = format.pageSchema(record);
  const submitLabel = controls === 'external' ? 'Confirm' : 'Send';
  const form = renderFormHtml(schema, {
    values: refusal?.values ?? {},
    errors: refusal?.errors ?? {},
    submitLabel,
    idPrefix: 'cb',
  });
  return layout('Answer', heading + form, true);
}

/** After this submit won. */
export function answeredPage(record: InteractionRecord): string {
  return outcomePage('Answered', 'Thank you — your answer was sent.', 'You can close this page.', record.question);
}

/** The question was answered before (by this person or anyone else, on any surface). */
export function alreadyAnsweredPage(record: InteractionRecord): string {
  return outcomePage(
    'Already answered',
    'This question was already answered.',
    'Nothing more is needed; you can close this page.',
    record.question,
  );
}

/** The question expired or was withdrawn before an answer. */
export function expiredPage(record: InteractionRecord): string {
  const why =
    record.status === 'cancelled'
      ? 'The asker withdrew this question.'
      : 'This question expired before it was answered.';
  return outcomePage('Expired', 'This question is closed.', why, null);
}

/**
 * The one page for a ticket that shows nothing: unknown, pruned, or bound to a verifier (whatever its state).
 * It is a constant, so its bytes cannot tell those cases apart.
 */
export const NOT_AVAILABLE_PAGE = outcomePage(
  'Not available',
  'This link does not open a question.',
  'It may have expired, or it is not meant to be opened in a browser.',
  null,
);

/** A door error shown to a person (too many requests, a gateway failure). */
export function errorPage(message: string): string {
  return outcomePage('Try again later', 'This page cannot be shown right now.', message, null);
}
