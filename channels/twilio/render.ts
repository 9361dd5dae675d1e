import { createHash } from 'node:crypto';
import {
  BODY_MAX,
  GSM_SEGMENT,
  GSM_SINGLE,
  SMS_MAX_SEGMENTS,
  UCS2_SEGMENT,
  UCS2_SINGLE,
  WHATSAPP_BODY_MAX,
  RenderLimitError,
} from './limits.js';
import { clip } from '../outcome.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { renderHints } from '../../src/core/formats/index.js';
import { reviewReplyWords } from '../review-words.js';
import { renderReviewText } from './review.js';

/**
 * Question → the plain text of one SMS (or WhatsApp-via-Twilio message), as data. Every question starts with a
 * short tag, `[#347]`: a person with several questions open starts the reply with it ("#347 yes"); a reply without a
 * tag answers the latest one.
 */

// The GSM 03.38 basic set and its extension table (the extension characters cost two septets).
const GSM =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXT = '^{}\\[~]|€\f';

/** How many segments an SMS body takes: GSM-7 when every character allows it, UCS-2 otherwise. */
export function segments(text: string): number {
  const chars = [...text];
  if (chars.every((c) => GSM.includes(c) || GSM_EXT.includes(c))) {
    const septets = chars.reduce((n, c) => n + (GSM_EXT.includes(c) ? 2 : 1), 0);
    return septets <= GSM_SINGLE ? 1 : Math.ceil(septets / GSM_SEGMENT);
  }
  // UCS-2 counts UTF-16 units: an emoji is two.
  return text.length <= UCS2_SINGLE ? 1 : Math.ceil(text.length / UCS2_SEGMENT);
}

/** The tag of a question: three digits from its id, stable across processes. */
export function tagOf(interactionId: string): string {
  return String((parseInt(createHash('sha256').update(interactionId).digest('hex').slice(0, 8), 16) % 900) + 100);
}

/** A reply's leading tag (`#347 yes`, `#347: yes`), and the words after it. */
export function splitTag(body: string): { tag: string | null; text: string } {
  const m = /^\s*#(\d{3})\b[\s:.,-]*/.exec(body);
  return m === null ? { tag: null, text: body.trim() } : { tag: m[1] as string, text: body.slice(m[0].length).trim() };
}

export const isWhatsApp = (address: string): boolean => address.startsWith('whatsapp:');

function hint(interaction: StoredInteraction, callbackUrl: string): string {
  // The controls come from the format's render hint (src/core/formats/).
  switch (renderHints(interaction).controls) {
    case 'buttons':
      return 'Reply YES or NO.';
    case 'menu':
      return 'Reply with the number of your choice.';
    case 'text':
      return 'Reply with your answer.';
    case 'review':
      return reviewReplyWords(interaction);
    case 'external':
    case 'form':
      // A form never reaches here (the channel advertises no form delivery); an external question is answered on its page.
      return `Answer here: ${callbackUrl}`;
  }
}

/** The whole message, within SMS_MAX_SEGMENTS (SMS) or the WhatsApp body limit; a long question links its page. */
export function renderText(interaction: StoredInteraction, callbackUrl: string, to: string): string {
  const fits = isWhatsApp(to)
    ? (t: string) => [...t].length <= WHATSAPP_BODY_MAX
    : (t: string) => segments(t) <= SMS_MAX_SEGMENTS && t.length <= BODY_MAX;
  const head = `[#${tagOf(interaction.id)}] `;
  if (interaction.answer_format === 'review') return renderReviewText(interaction, callbackUrl, head, fits);
  const tail = `\n${hint(interaction, callbackUrl)}`;
  const choices = interaction.answer_format === 'select' ? (interaction.choices ?? []) : [];
  const list = (max: number): string => choices.map((c, i) => `\n${i + 1}. ${clip(c, max)}`).join('');
  const whole = `${head}${interaction.question}${list(Infinity)}${tail}`;
  if (fits(whole)) return whole;
  // Too long: the question keeps its start, choices their first words, and the callback page has it all.
  const link = `\nFull question: ${callbackUrl}`;
  for (const [q, c] of [
    [160, 40],
    [100, 20],
    [60, 12],
    [40, 0],
  ] as const) {
    const text = `${head}${clip(interaction.question, q)}${c > 0 ? list(c) : ''}${link}${tail}`;
    if (fits(text)) return text;
  }
  const bare = `${head}${clip(interaction.question, 40)}${link}`;
  if (!fits(bare))
    throw new RenderLimitError(
      `the message needs more than ${SMS_MAX_SEGMENTS} SMS segments even with the question linked; Twilio bodies allow ${BODY_MAX} characters.`,
    );
  return bare;
}
