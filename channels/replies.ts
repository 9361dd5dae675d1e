import type { StoredInteraction } from '../src/core/types.js';
import type { DispatchOutcome } from './contract.js';
import { reviewReplyWords } from './review-words.js';

/**
 * A typed reply (or a media caption) → the raw answer offered to the core. The core still checks it against the
 * format and schema; this only reads the person's words the way they meant them ("yes" is true, "2" the second
 * choice). What does not read as an answer is passed through as text, so the core's refusal names what was wrong.
 */

const YES = new Set(['yes', 'y', 'true', 'ok', 'okay', 'sure', '👍', '✅']);
const NO = new Set(['no', 'n', 'false', 'nope', '👎', '❌']);
/**
 * Words that pick a select's `Decline` choice when no choice is spelled that way: on SMS a person cannot tap the
 * Decline of an MCP elicitation (src/mcp/elicitation.ts asks it as a one-choice select), and "no" is what they text.
 */
const DECLINE_WORDS = new Set(['no', 'decline']);
const DECLINE_CHOICE = 'decline';
const APPROVE_WORDS = new Set([...YES, 'approve', 'approved']);
const REJECT_WORDS = new Set([...NO, 'reject', 'rejected', 'deny']);

/**
 * A reply to a review: a yes word or "approve" alone approves; a no word or "reject" rejects, and what follows it
 * (`reject: not on a Friday`, `no, not yet`) is the rejection's message; anything else is words back to the agent
 * (`respond`; the core refuses it, naming `decision`, when the review does not offer respond). `yes but use
 * staging` is words, not a yes: only the word alone approves.
 */
function reviewFromReply(said: string): Record<string, unknown> {
  const m = /^(\S+?)[.!:,;-]*(?:\s+|$)([\s\S]*)$/u.exec(said);
  const word = (m?.[1] ?? '').toLowerCase();
  const rest = (m?.[2] ?? '').replace(/^[\s:,;-]+/, '').trim();
  if (APPROVE_WORDS.has(word) && rest === '') return { decision: 'approve' };
  if (REJECT_WORDS.has(word)) return rest === '' ? { decision: 'reject' } : { decision: 'reject', message: rest };
  return { decision: 'respond', message: said };
}

export function answerFromText(
  interaction: Pick<StoredInteraction, 'answer_format' | 'choices'>,
  text: string | null,
): unknown {
  const said = (text ?? '').trim();
  switch (interaction.answer_format) {
    case 'confirm': {
      const word = said.toLowerCase().replace(/[.!]+$/, '');
      if (YES.has(word)) return true;
      if (NO.has(word)) return false;
      return said;
    }
    case 'select': {
      const choices = interaction.choices ?? [];
      const exact = choices.find((c) => c === said) ?? choices.find((c) => c.toLowerCase() === said.toLowerCase());
      if (exact !== undefined) return exact;
      if (/^\d{1,3}$/.test(said)) return choices[Number(said) - 1] ?? said;
      if (DECLINE_WORDS.has(said.toLowerCase().replace(/[.!]+$/, ''))) {
        const decline = choices.find((c) => c.toLowerCase() === DECLINE_CHOICE);
        if (decline !== undefined) return decline;
      }
      return said;
    }
    case 'form':
      // A form is filled in the webview; a reply may still carry the answer as a JSON object.
      try {
        return JSON.parse(said) as unknown;
      } catch {
        return said;
      }
    case 'text':
    case 'external':
      return text ?? '';
    case 'review':
      return reviewFromReply(said);
  }
}

/** What to tell a person whose reply did not fit, in the words of the format. */
export function replyHint(
  interaction: Pick<StoredInteraction, 'answer_format' | 'choices' | 'schema' | 'action' | 'decisions'>,
  coreMessage: string,
): string {
  switch (interaction.answer_format) {
    case 'confirm':
      return 'Please answer yes or no.';
    case 'select':
      return `Please answer with one of: ${(interaction.choices ?? []).map((c, i) => `${i + 1}. ${c}`).join(', ')}`.slice(
        0,
        1000,
      );
    case 'form':
      return `That does not fill the form (${coreMessage}). Open the form instead.`;
    case 'text':
    case 'external':
      return `That answer was not accepted: ${coreMessage}`;
    case 'review':
      return `That answer was not accepted (${coreMessage}). ${reviewReplyWords(interaction)}`;
  }
}

/** What to tell a person who acted on a question that has ended (a stale button, a late reply or tap). */
export function tellClosed(status: string): string {
  if (status === 'answered') return 'This question is already answered.';
  if (status === 'cancelled') return 'This question was cancelled by its asker.';
  if (status === 'expired') return 'This question has expired.';
  return 'This question is no longer available.';
}

/** An outcome in which the person's answer was not taken (what a channel words for them). */
export type NotTaken = Exclude<DispatchOutcome, { kind: 'answered' | 'ready' }>;

/**
 * What to tell a person whose answer was not taken: someone answered first, the question had ended, it is not theirs
 * to answer, or the answer did not fit (in the core's own sentence; a channel that helps with the format's words
 * uses `replyHint` instead).
 */
export function tellNotTaken(outcome: NotTaken): string {
  switch (outcome.kind) {
    case 'voted':
      return 'Your vote is counted; the question resolves when enough approvers have voted.';
    case 'closed':
      return tellClosed(outcome.status);
    case 'refused':
      return outcome.refusal.code === 'not_an_approver'
        ? 'Only the approvers named for this question may answer it; your answer was not taken.'
        : outcome.message;
    case 'not_found':
    case 'wrong_surface':
      return tellClosed('unknown');
  }
}
