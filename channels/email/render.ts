import { clip } from '../outcome.js';
import { PREHEADER_MAX, SUBJECT_MAX } from './limits.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * Question → one email's subject, plain text and HTML, as data (no calls). The HTML uses tables and inline styles
 * (what Gmail, Outlook and Apple Mail all render), no external image or font, and a `prefers-color-scheme: dark`
 * block for the clients that honour it; the links are styled as buttons. The plain-text part says the same with
 * the links written out, for clients that show text only.
 */

/** One button: its label and the URL it opens (an action link, or the form page). */
export interface EmailButton {
  label: string;
  url: string;
}

/** What the message asks the person to do: press one of the buttons, or reply. */
export interface EmailAsk {
  buttons: readonly EmailButton[];
  /** Lines shown under the question as they are (a review's proposed action); null: none. */
  details?: string | null;
  /** The sentence above the buttons (or, with none, the whole instruction). */
  instruction: string;
  /** The sentence below them: how else to answer, what a link does. */
  footnote: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The subject: the question's first line, cut to SUBJECT_MAX. */
export function subjectOf(question: string): string {
  const first = question.split(/\r?\n/).find((line) => line.trim() !== '') ?? 'A question for you';
  return clip(first.trim().replace(/\s+/g, ' '), SUBJECT_MAX);
}

/** The instruction and footnote of each format; the buttons are made by the plugin (links need the core). */
export function askOf(
  interaction: Pick<StoredInteraction, 'answer_format'>,
  buttons: readonly EmailButton[],
): EmailAsk {
  const links =
    'Each button opens a page that shows what it will answer; nothing is sent until you press the button there.';
  switch (interaction.answer_format) {
    case 'confirm':
      return { buttons, instruction: 'Choose your answer:', footnote: `${links} You can also reply YES or NO.` };
    case 'select':
      return {
        buttons,
        instruction: 'Choose one:',
        footnote: `${links} You can also reply with a choice or its number.`,
      };
    case 'form':
      return {
        buttons,
        instruction: 'This question is a short form:',
        footnote: 'The button opens the form; your answer is sent when you submit it there.',
      };
    case 'text':
      return {
        buttons,
        instruction: 'Reply to this email with your answer.',
        footnote: 'Write above the quoted text.',
      };
    case 'review':
      return {
        buttons,
        instruction: 'Review the proposed action:',
        footnote:
          'The button opens the review, where you approve, edit or reject it; nothing is decided until you send it ' +
          'there. You can also reply APPROVE or REJECT.',
      };
    default:
      return { buttons, instruction: 'Answer on its page:', footnote: 'The button opens the page of this question.' };
  }
}

/** The whole message. `asker` and `deadline` are shown under the question. */
export function renderEmail(
  interaction: Pick<StoredInteraction, 'question' | 'asked_by' | 'deadline_at'>,
  ask: EmailAsk,
): RenderedEmail {
  const deadline = deadlineWords(interaction.deadline_at);
  const meta = `Asked by ${interaction.asked_by}${deadline === null ? '' : ` · answer by ${deadline}`}`;
  const text = [
    interaction.question,
    '',
    meta,
    '',
    ...(ask.details == null ? [] : [ask.details, '']),
    ask.instruction,
    ...ask.buttons.map((b, i) => `${ask.buttons.length > 1 ? `${i + 1}. ` : ''}${b.label}: ${b.url}`),
    '',
    ask.footnote,
  ].join('\n');
  return { subject: subjectOf(interaction.question), text, html: html(interaction.question, meta, ask) };
}

/** A follow-up in the question's thread (an outcome, a reminder, a hint): the same look, one paragraph. */
export function renderNote(subject: string, note: string, question: string | null): RenderedEmail {
  const text = question === null ? note : `${note}\n\n> ${question.split('\n').join('\n> ')}`;
  const quoted =
    question === null
      ? ''
      : '<p style="margin:16px 0 0;padding-left:12px;border-left:3px solid #c9d1d9;" class="ag-muted">' +
        `${paragraphs(question)}</p>`;
  return {
    subject,
    text,
    html: shell(
      clip(note, PREHEADER_MAX),
      `<p style="margin:0;font-size:16px;line-height:1.5;">${paragraphs(note)}</p>${quoted}`,
    ),
  };
}

function deadlineWords(deadlineAt: string): string | null {
  const at = new Date(deadlineAt);
  return Number.isNaN(at.getTime()) ? null : `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escaped text with its line breaks kept. */
const paragraphs = (text: string): string => escapeHtml(text).replace(/\r?\n/g, '<br>');

const BUTTON =
  'display:inline-block;min-width:96px;text-align:center;padding:12px 22px;border-radius:8px;' +
  'background:#1f6feb;color:#ffffff;' +
  'font-weight:600;font-size:16px;line-height:1.25;text-decoration:none;word-break:break-word;';

function buttons(list: readonly EmailButton[]): string {
  // Stacked one per row: long choices wrap inside their own button and nothing is wider than a phone.
  return list
    .map(
      (b) =>
        '<tr><td style="padding:0 0 10px;">' +
        `<a href="${escapeHtml(b.url)}" class="ag-button" style="${BUTTON}">${escapeHtml(b.label)}</a>` +
        '</td></tr>',
    )
    .join('');
}

function html(question: string, meta: string, ask: EmailAsk): string {
  const content =
    `<h1 style="margin:0 0 8px;font-size:20px;line-height:1.35;font-weight:600;">${paragraphs(question)}</h1>` +
    `<p style="margin:0 0 20px;font-size:13px;" class="ag-muted">${escapeHtml(meta)}</p>` +
    (ask.details == null
      ? ''
      : '<p style="margin:0 0 20px;padding:12px;border:1px solid #d0d7de;border-radius:8px;font-size:14px;' +
        `line-height:1.5;word-break:break-word;" class="ag-details">${paragraphs(ask.details)}</p>`) +
    `<p style="margin:0 0 12px;font-size:16px;">${escapeHtml(ask.instruction)}</p>` +
    (ask.buttons.length === 0
      ? ''
      : `<table role="presentation" cellpadding="0" cellspacing="0" border="0">${buttons(ask.buttons)}</table>`) +
    `<p style="margin:12px 0 0;font-size:13px;line-height:1.5;" class="ag-muted">${escapeHtml(ask.footnote)}</p>`;
  return shell(clip(question.replace(/\s+/g, ' '), PREHEADER_MAX), content);
}

/** The document around every message: a centred card, light by default, dark where the client asks for it. */
function shell(preheader: string, content: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">' +
    '<style>' +
    '.ag-muted{color:#57606a;}' +
    '@media (prefers-color-scheme: dark){' +
    '.ag-body{background:#15181c !important;}' +
    '.ag-card{background:#1f242b !important;color:#e6edf3 !important;border-color:#30363d !important;}' +
    '.ag-muted{color:#9da7b3 !important;}' +
    '.ag-details{border-color:#30363d !important;}' +
    '.ag-button{background:#388bfd !important;color:#0d1117 !important;}' +
    '}' +
    '</style></head>' +
    '<body class="ag-body" style="margin:0;padding:0;background:#f3f4f6;">' +
    `<div style="display:none;max-height:0;overflow:hidden;">${escapeHtml(preheader)}</div>` +
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="ag-body" ' +
    'style="background:#f3f4f6;"><tr><td align="center" style="padding:24px 12px;">' +
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="ag-card" ' +
    'style="max-width:560px;background:#ffffff;color:#1f2328;border:1px solid #d0d7de;border-radius:12px;' +
    "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;\">" +
    `<tr><td style="padding:24px;">${content}</td></tr></table>` +
    '</td></tr></table></body></html>'
  );
}
