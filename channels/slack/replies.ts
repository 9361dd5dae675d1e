import { answerFromText as readWords } from '../replies.js';
import type { StoredInteraction } from '../../src/core/types.js';

export { replyHint } from '../replies.js';

/**
 * Slack sends emoji in message text as shortcodes (a typed 👍 arrives as `:+1:`); they are read as the emoji the
 * shared reply reader knows, so "👍" in a thread confirms on Slack as it does elsewhere.
 */
const SHORTCODES: Readonly<Record<string, string>> = {
  ':+1:': '👍',
  ':thumbsup:': '👍',
  ':white_check_mark:': '✅',
  ':heavy_check_mark:': '✅',
  ':-1:': '👎',
  ':thumbsdown:': '👎',
  ':x:': '❌',
};

export function answerFromText(
  interaction: Pick<StoredInteraction, 'answer_format' | 'choices'>,
  text: string,
): unknown {
  const said = text.trim();
  const emoji = interaction.answer_format === 'confirm' ? SHORTCODES[said] : undefined;
  return readWords(interaction, emoji ?? text);
}
