/**
 * The pages of the action-link door (`/a/{token}`): what the click will do with its one button, and what happened.
 * The same look as the callback pages (forms.css and the callback stylesheet, light and dark); no script at all.
 * Every string from an asker or a channel goes through `escapeHtml`.
 */
import { escapeHtml } from '../../forms/render-html.js';
import type { ActionLinkClaim } from '../core/action-links.js';
import type { InteractionRecord } from '../core/types.js';
import { layout, whoAndWhen } from './pages.js';

/**
 * The door's policy: no script anywhere, styles and the form's post this origin's only, never framed (a framed
 * button could be clicked by a person who cannot see what it does).
 */
export const ACTION_LINK_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every page of the door; `no-referrer` matters, as the page's URL is the capability. */
export const ACTION_LINK_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': ACTION_LINK_CSP,
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
});

/** How a link's answer reads on the page: Yes / No for confirm, the choice itself for select. */
export function choiceLabel(answer: unknown): string {
  if (answer === true) return 'Yes';
  if (answer === false) return 'No';
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

/** Who the link is for, as the person knows themselves (the address or number the message went to). */
const forWhom = (claim: ActionLinkClaim): string => escapeHtml(claim.recipient);

function statusPage(title: string, heading: string, lines: readonly string[], question: string | null): string {
  const q = question === null ? '' : `<p class="cb-question">${escapeHtml(question)}</p>`;
  const notes = lines.map((line) => `<p class="cb-note">${line}</p>`).join('');
  return layout(title, `<h1 class="cb-outcome" role="status">${escapeHtml(heading)}</h1>${q}${notes}`, false);
}

/**
 * A pending question: what the click will do, and the one button that does it. The button posts the token back to
 * this same URL (the form's own origin); nothing is answered until it is pressed.
 */
export function confirmChoicePage(record: InteractionRecord, claim: ActionLinkClaim, token: string): string {
  const label = choiceLabel(claim.answer);
  const body =
    `<h1 class="cb-question">${escapeHtml(record.question)}</h1>${whoAndWhen(record)}` +
    '<section class="al-card" aria-labelledby="al-what">' +
    `<p id="al-what">This link answers for <strong>${forWhom(claim)}</strong>:</p>` +
    `<p class="al-choice">${escapeHtml(label)}</p>` +
    '<form method="post" accept-charset="utf-8">' +
    `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
    `<div class="ag-actions"><button type="submit" class="ag-submit">Answer “${escapeHtml(label)}”</button></div>` +
    '</form></section>' +
    '<p class="cb-note">Nothing is sent until you press the button. To answer differently, use the other link in ' +
    'the message.</p>';
  return layout('Answer', body, false);
}

/** This click's answer was taken. */
export function sentPage(record: InteractionRecord, claim: ActionLinkClaim): string {
  return statusPage(
    'Answered',
    'Thank you — your answer was sent.',
    [`You answered <strong>${escapeHtml(choiceLabel(claim.answer))}</strong>. You can close this page.`],
    record.question,
  );
}

/** A quorum question counted this vote and is still open. */
export function votedPage(record: InteractionRecord, claim: ActionLinkClaim): string {
  return statusPage(
    'Vote counted',
    'Thank you — your vote was counted.',
    [
      `You voted <strong>${escapeHtml(choiceLabel(claim.answer))}</strong>.`,
      'The question stays open until enough approvers have answered; you can close this page.',
    ],
    record.question,
  );
}

/** The question was answered (through this link or any other way): the answer and who gave it. */
export function answeredOutcomePage(record: InteractionRecord): string {
  const result = record.result;
  const lines =
    result === null
      ? ['Nothing more is needed; you can close this page.']
      : [
          `The answer was <strong>${escapeHtml(choiceLabel(result.answer))}</strong>, from ` +
            `${escapeHtml(result.answered_by)}.`,
          'Nothing more is needed; you can close this page.',
        ];
  return statusPage('Already answered', 'This question was answered.', lines, record.question);
}

/** The question expired or was withdrawn before an answer. */
export function closedPage(record: InteractionRecord): string {
  const why =
    record.status === 'cancelled'
      ? 'The asker withdrew this question.'
      : 'This question expired before it was answered.';
  return statusPage('Closed', 'This question is closed.', [why], record.question);
}

/** The question names approvers and this link's recipient is not one of them. */
export function notAnApproverPage(record: InteractionRecord, claim: ActionLinkClaim): string {
  return statusPage(
    'Not an approver',
    'This link cannot answer this question.',
    [`Only the question’s approvers may answer it, and ${forWhom(claim)} is not one of them. Nothing was changed.`],
    record.question,
  );
}

/** A token that is not one of this gateway's links: changed, cut short, or from somewhere else. */
export const INVALID_LINK_PAGE = statusPage(
  'Link not valid',
  'This link is not valid.',
  ['It may have been changed or cut short on its way. Open it again from the message it came in.'],
  null,
);

/** An authentic link past its expiry, on a question that has not resolved. */
export const EXPIRED_LINK_PAGE = statusPage(
  'Link expired',
  'This link has expired.',
  ['Its question is no longer taking answers through this link. Nothing was changed.'],
  null,
);

/** An authentic link whose question no longer exists (pruned), or a gateway that makes no links. */
export const LINK_NOT_AVAILABLE_PAGE = statusPage(
  'Not available',
  'This link does not open a question.',
  ['The question may have been removed after it ended. Nothing was changed.'],
  null,
);

/** A POST that did not come from the link's own page (another site's form, a stray request). */
export const NOT_FROM_THE_PAGE = statusPage(
  'Not sent',
  'This answer was not sent.',
  ['The button must be pressed on the link’s own page. Open the link again and press it there.'],
  null,
);

/** A refusal before the link was read (too many requests, a failure), worded by the door. */
export function linkErrorPage(message: string): string {
  return statusPage('Try again later', 'This page cannot be shown right now.', [escapeHtml(message)], null);
}
