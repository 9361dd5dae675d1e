/**
 * The proposed action of a review as HTML: "Proposed action", its name, its description and one row per argument.
 * One renderer for the server-rendered callback page and the browser pages (the inbox, the web chat), so the action
 * reads the same everywhere; every string goes through `escapeHtml`.
 */
import { escapeHtml } from './render-html.js';
import { argLines, type ReviewAction } from './review-view.js';

/** The most characters of one argument's value shown in a row (the whole value is in the edit form). */
export const ARG_VALUE_MAX = 400;

export function renderActionHtml(action: ReviewAction): string {
  const name =
    '<p class="review-name"><span class="review-label">Proposed action</span>' +
    `<code class="review-tool">${escapeHtml(action.name)}</code></p>`;
  const description =
    action.description !== undefined && action.description.trim() !== ''
      ? `<p class="review-description">${escapeHtml(action.description)}</p>`
      : '';
  const lines = argLines(action.args, ARG_VALUE_MAX);
  const args =
    lines.length === 0
      ? '<p class="review-noargs">No arguments.</p>'
      : `<dl class="review-args">${lines
          .map((l) => `<div class="review-arg"><dt>${escapeHtml(l.key)}</dt><dd>${escapeHtml(l.value)}</dd></div>`)
          .join('')}</dl>`;
  return `<div class="review-action">${name}${description}${args}</div>`;
}
