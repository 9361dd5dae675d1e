import type { StoredInteraction } from '../src/core/types.js';

/**
 * The words of a reminder, the same on every channel: which nudge it is and the question, so a person who scrolled
 * past the message sees what is still waiting. It is posted as a reply to the question message, whose buttons stay
 * the way to answer (a typed reply answers as it does under the question).
 */
export function reminderText(interaction: Pick<StoredInteraction, 'question'>, n: number, max: number): string {
  return `⏰ Reminder ${n} of ${max}: still waiting for your answer to "${interaction.question}"`;
}
