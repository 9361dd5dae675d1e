/**
 * The one codec for button action codes: what a tapped button means, written into the button itself so a tap finds
 * its question with no lookup. A code is `<interaction id>:<pick>`:
 *
 * | code             | means                                   |
 * | ---------------- | --------------------------------------- |
 * | `Qk3v9x_A-bc:y`  | confirm: yes                            |
 * | `Qk3v9x_A-bc:n`  | confirm: no                             |
 * | `Qk3v9x_A-bc:s2` | select: the third choice (index 2)      |
 * | `Qk3v9x_A-bc:p1` | turn a long choice list to page 1       |
 * | `Qk3v9x_A-bc:a`  | review: approve                         |
 * | `Qk3v9x_A-bc:r`  | review: reject                          |
 * | `Qk3v9x_A-bc:e`  | review: edit (opens the channel's form) |
 * | `Qk3v9x_A-bc:m`  | review: respond (asks for the message)  |
 * | `Qk3v9x_A.3:s0`  | an id in shard 3 (src/core/shard-ids.ts)|
 *
 * An interaction id is base64url, with `.<k>` when it lives in shard k ≥ 1; an index or page is 0..999, written
 * without leading zeros, so every code that decodes encodes back to itself. Telegram carries it as callback_data,
 * WhatsApp as a reply button's or list row's id, Twilio as a quick-reply payload; each channel checks the result
 * against its own platform limit (channels/<name>/limits.ts).
 */

import type { ReviewDecision } from './types.js';

/** What a tapped button means. */
export type ActionPick =
  | { kind: 'confirm'; value: boolean }
  /**
   * A review's decision: approve and reject answer at once; edit and respond open what carries the args or the
   * message (a form, a prompt), which answers through the dispatcher's `review` pick.
   */
  | { kind: 'review'; decision: ReviewDecision }
  | { kind: 'choice'; index: number }
  /** A page of a choice list too long for one keyboard (Telegram): shows other buttons, answers nothing. */
  | { kind: 'page'; page: number };

export interface ActionCode {
  interactionId: string;
  pick: ActionPick;
}

/** The largest index or page a code carries (three digits). */
export const ACTION_INDEX_MAX = 999;

const ID = '[A-Za-z0-9_-]{1,48}(?:\\.\\d{1,3})?';
const NUMBER = '(?:0|[1-9]\\d{0,2})';
const CODE = new RegExp(`^(${ID}):(y|n|a|r|e|m|s${NUMBER}|p${NUMBER})$`);
/** A review decision's one-letter tail, and back. */
const REVIEW_TAILS: Readonly<Record<ReviewDecision, string>> = { approve: 'a', reject: 'r', edit: 'e', respond: 'm' };
const DECISION_OF_TAIL = new Map(Object.entries(REVIEW_TAILS).map(([d, t]) => [t, d as ReviewDecision]));
const ID_ONLY = new RegExp(`^${ID}$`);

/** The code of `pick` on the question `interactionId`. Throws for an id or a number no code can carry (a bug). */
export function encodeActionCode(interactionId: string, pick: ActionPick): string {
  if (!ID_ONLY.test(interactionId))
    throw new Error(`"${interactionId}" is not an interaction id an action code can carry (base64url, ≤ 48).`);
  if (pick.kind === 'confirm') return `${interactionId}:${pick.value ? 'y' : 'n'}`;
  if (pick.kind === 'review') return `${interactionId}:${REVIEW_TAILS[pick.decision]}`;
  const n = pick.kind === 'choice' ? pick.index : pick.page;
  if (!Number.isInteger(n) || n < 0 || n > ACTION_INDEX_MAX)
    throw new Error(`an action code carries a ${pick.kind} of 0..${ACTION_INDEX_MAX}, not ${n}.`);
  return `${interactionId}:${pick.kind === 'choice' ? 's' : 'p'}${n}`;
}

/** What a code means, or null when it is not one of ours (another bot's button, a hand-made payload). */
export function decodeActionCode(code: string): ActionCode | null {
  const m = CODE.exec(code);
  if (m === null) return null;
  const interactionId = m[1] as string;
  const tail = m[2] as string;
  if (tail === 'y' || tail === 'n') return { interactionId, pick: { kind: 'confirm', value: tail === 'y' } };
  const decision = DECISION_OF_TAIL.get(tail);
  if (decision !== undefined) return { interactionId, pick: { kind: 'review', decision } };
  const n = Number(tail.slice(1));
  return { interactionId, pick: tail.startsWith('s') ? { kind: 'choice', index: n } : { kind: 'page', page: n } };
}
