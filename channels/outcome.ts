import type { InteractionRecord } from '../src/core/types.js';

/** Cuts `text` to `max` characters with an ellipsis (by code points, so no surrogate is split). */
export function clip(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/** A short, human summary of an answer for an outcome line. */
export function summarize(record: Pick<InteractionRecord, 'answer_format' | 'result'>): string {
  const answer = record.result?.answer;
  if (record.answer_format === 'confirm') return answer === true ? 'Yes' : 'No';
  if (typeof answer === 'string') return `“${clip(answer, 200)}”`;
  if (record.answer_format === 'form') return 'form submitted';
  return clip(JSON.stringify(answer) ?? '', 200);
}

/** The line every channel shows under a question once it has ended; null while it is pending. */
export function outcomeLine(record: Pick<InteractionRecord, 'status' | 'answer_format' | 'result'>): string | null {
  switch (record.status) {
    case 'answered':
      return `✅ Answered: ${summarize(record)} — by ${record.result?.answered_by ?? 'someone'} (${record.result?.surface ?? 'inbox'})`;
    case 'expired':
      return '⌛ Expired: this question no longer takes answers.';
    case 'cancelled':
      return '✖ Cancelled by the asker.';
    case 'pending':
      return null;
  }
}
