import { decisionWords, reviewOutcomeLine } from '../src/core/review-view.js';
import type { InteractionRecord, StoredInteraction } from '../src/core/types.js';

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
  if (record.answer_format === 'review') return decisionWords(answer) ?? clip(JSON.stringify(answer) ?? '', 200);
  return clip(JSON.stringify(answer) ?? '', 200);
}

/**
 * Who answered, as the outcome names them. `id` is the verified identity the answer path recorded
 * (`slack:U1`, `telegram:42`, a token identity's name); `name` is a name the platform's signed webhook gave with
 * that answer (Slack's `user.name`, Telegram's `@username`), only ever shown beside the id, never instead of it.
 */
export interface Answerer {
  id: string;
  /** The platform's own user id when `id` is `<surface>:<user id>` from that surface; null otherwise. */
  platformId: string | null;
  name: string | null;
}

/** How a channel writes the parts of an outcome line: a mention for a person, escaping for plain words. */
export interface OutcomeStyle {
  who?: (answerer: Answerer) => string;
  text?: (words: string) => string;
}

type OutcomeRecord = Pick<InteractionRecord, 'status' | 'answer_format' | 'result'>;

/** Where an answer that came through no channel came from, as a person reads it after "Approved by <who>". */
const DOOR_PLACES: Readonly<Record<string, string>> = {
  inbox: 'in the inbox',
  api: 'through the API',
  cli: 'from the command line',
  callback: 'through the callback link',
};

/** A channel's place: words, or words chosen by the verified answerer (channels/module.ts, `place`). */
export type Place = string | ((answeredBy: string) => string);

/**
 * The installed channels' places, by name. Filled once, by the registration list as it loads
 * (channels/registration/from-config.ts): this module is shared by every channel folder, so it cannot import that
 * list (the folders would import each other in a circle); the list hands each channel's words in instead.
 */
const CHANNEL_PLACES = new Map<string, Place>();

/** Records where answers on `channel` come from (called by the registration list, once per installed channel). */
export function definePlace(channel: string, place: Place): void {
  CHANNEL_PLACES.set(channel, place);
}

function placeOf(record: OutcomeRecord): string {
  const surface = record.result?.surface ?? 'api';
  const place = CHANNEL_PLACES.get(surface) ?? DOOR_PLACES[surface] ?? `on ${surface}`;
  return typeof place === 'string' ? place : place(record.result?.answered_by ?? '');
}

/** The answerer of a resolved record; the name comes only from what the signed webhook stored with the answer. */
export function answererOf(record: OutcomeRecord): Answerer {
  const id = record.result?.answered_by || 'someone';
  const surface = record.result?.surface ?? '';
  const prefix = `${surface}:`;
  const platformId = surface !== '' && id.startsWith(prefix) ? id.slice(prefix.length) : null;
  const params = record.result?.params ?? null;
  const raw = params?.['user_name'] ?? params?.['from_username'] ?? null;
  const name = raw === null || raw === '' ? null : surface === 'telegram' ? `@${raw}` : raw;
  return { id, platformId, name };
}

/** The default way to name the answerer: the verified id, with the platform-given name beside it when stored. */
export function plainAnswerer(answerer: Answerer): string {
  return answerer.name === null ? answerer.id : `${answerer.name} (${answerer.id})`;
}

/**
 * The one line every channel shows once a question has ended; null while it is pending. Names the outcome, who
 * answered and where: "✅ Approved by <who> on Slack", "❌ Rejected by <who> on Telegram", "✅ Answered by <who> on
 * WhatsApp: “eu-west”", "⌛ Expired", "✖ Cancelled". A channel passes its `style` to render the person as its
 * platform's mention and to escape the rest.
 */
export function outcomeLine(record: OutcomeRecord, style: OutcomeStyle = {}): string | null {
  const text = style.text ?? ((words: string) => words);
  const who = (): string => (style.who ?? plainAnswerer)(answererOf(record));
  switch (record.status) {
    case 'answered': {
      const where = text(placeOf(record));
      if (record.answer_format === 'confirm')
        return record.result?.answer === true ? `✅ Approved by ${who()} ${where}` : `❌ Rejected by ${who()} ${where}`;
      if (record.answer_format === 'review') {
        // The review's own words (core/review-view.ts): "✏️ Edited by <who> on Slack", "❌ Rejected by …: “why”".
        const line = reviewOutcomeLine(record.result?.answer, { who: who(), where, text });
        if (line !== null) return line;
      }
      return `✅ Answered by ${who()} ${where}: ${text(summarize(record))}`;
    }
    case 'expired':
      return '⌛ Expired';
    case 'cancelled':
      return '✖ Cancelled';
    case 'pending':
      return null;
  }
}

/**
 * The live count of a pending quorum question ("2 of 3 approved", and "1 of 2 rejected" when more than one no
 * vote is needed to reject); null for a question without a quorum or once it has ended.
 */
export function voteCountLine(record: Pick<StoredInteraction, 'status' | 'quorum' | 'votes'>): string | null {
  if (record.status !== 'pending' || record.quorum === undefined) return null;
  const votes = record.votes ?? [];
  const yes = votes.filter((v) => v.answer).length;
  const no = votes.length - yes;
  const approved = `${yes} of ${record.quorum.approve} approved`;
  return record.quorum.reject > 1 ? `🗳 ${approved} · ${no} of ${record.quorum.reject} rejected` : `🗳 ${approved}`;
}
