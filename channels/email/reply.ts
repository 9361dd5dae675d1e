import type { DispatchOutcome, ReadAnswer } from '../contract.js';
import { answerFromText, replyHint, tellNotTaken } from '../replies.js';
import { sameAddress } from './address.js';
import type { PersonMail } from './inbound.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * A reply's new text → the answer, read with the question in hand: text as written; confirm from its leading word
 * (`Yes, go ahead.` is yes); select from a choice's words or number on its first line; a review and a form as every
 * channel reads them (channels/replies.ts).
 * Only the address the question went to answers it; anyone else is refused as data (`field: from`), so the channel
 * records the attempt and changes nothing.
 */
export function answerReply(question: StoredInteraction, mail: PersonMail): ReadAnswer {
  if (question.recipient === null || !sameAddress(mail.from, question.recipient))
    return {
      ok: false,
      refusal: { code: 'not_an_approver', field: 'from', reason: 'is not the address this question was sent to' },
      message: 'Only the address this question was sent to may answer it by reply.',
    };
  const text = mail.newText;
  const firstLine = text.split('\n').find((line) => line.trim() !== '') ?? '';
  switch (question.answer_format) {
    case 'confirm': {
      const word = /^[\p{L}\p{N}👍👎✅❌]+/u.exec(firstLine.trim())?.[0] ?? '';
      const read = answerFromText(question, word);
      return { ok: true, answer: typeof read === 'boolean' ? read : firstLine.trim() };
    }
    case 'select': {
      const line = firstLine.trim().replace(/[.!]+$/, '');
      return { ok: true, answer: answerFromText(question, line) };
    }
    default:
      return { ok: true, answer: answerFromText(question, text) };
  }
}

/** What to write back in the thread after a reply, or null when nothing needs saying (the outcome mail follows). */
export function replyWords(outcome: DispatchOutcome): string | null {
  switch (outcome.kind) {
    case 'answered':
    case 'ready':
    case 'not_found':
    case 'wrong_surface':
      return null;
    case 'refused':
      return outcome.refusal.code === 'invalid_answer'
        ? `Your reply was not taken as an answer. ${replyHint(outcome.question, outcome.message)}`
        : tellNotTaken(outcome);
    default:
      return tellNotTaken(outcome);
  }
}
