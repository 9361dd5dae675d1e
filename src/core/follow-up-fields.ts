import { invalid } from './errors.js';
import type { EscalationStep, RemindSpec } from './types.js';

/**
 * The ask fields that follow a pending question up: `remind` (nudge its surfaces again) and `escalate` (deliver it
 * to more surfaces later). Their limits are shared with the published schema (`ask-body-schema.ts`).
 */
export const FOLLOW_UP_LIMITS = {
  /** The shortest reminder interval, in seconds: a person is not nudged more than once a minute. */
  remindEveryMin: 60,
  remindMaxMin: 1,
  remindMaxMax: 10,
  escalateMaxSteps: 5,
} as const;

/** What the follow-up rules need to know about the rest of the ask. */
export interface FollowUpContext {
  /** The ask's own channel (null: the inbox). */
  channel: string | null;
  /** Seconds from the ask to its deadline. */
  secondsToDeadline: number;
  /**
   * Refuses (a 400 naming `field`) a channel this ask cannot be delivered on: not registered, or unable to carry its
   * format (the same rules as the ask's own channel).
   */
  checkChannel(channel: string, field: string): void;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `remind`, or null when absent. Throws a 400 naming the offending field. */
export function parseRemind(raw: unknown, ctx: FollowUpContext): RemindSpec | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw invalid('remind', 'remind must be an object {"every": seconds ≥ 60, "max": 1..10}.');
  const extra = Object.keys(raw).find((k) => k !== 'every' && k !== 'max');
  if (extra !== undefined)
    throw invalid(`remind.${extra}`, `remind.${extra} is not a remind field; use every and max.`);
  const { every, max } = raw;
  if (typeof every !== 'number' || !Number.isInteger(every) || every < FOLLOW_UP_LIMITS.remindEveryMin)
    throw invalid(
      'remind.every',
      `remind.every must be a whole number of seconds, at least ${FOLLOW_UP_LIMITS.remindEveryMin}.`,
    );
  if (
    typeof max !== 'number' ||
    !Number.isInteger(max) ||
    max < FOLLOW_UP_LIMITS.remindMaxMin ||
    max > FOLLOW_UP_LIMITS.remindMaxMax
  )
    throw invalid(
      'remind.max',
      `remind.max must be a whole number from ${FOLLOW_UP_LIMITS.remindMaxMin} to ${FOLLOW_UP_LIMITS.remindMaxMax}.`,
    );
  // A reminder replies on the question's own surfaces: an inbox question has none to reply on.
  if (ctx.channel === null)
    throw invalid(
      'remind',
      'remind needs a channel to send the reminders to; name the channel (and recipient), or drop remind.',
    );
  if (every >= ctx.secondsToDeadline)
    throw invalid(
      'remind.every',
      `remind.every (${every} s) is not before the deadline (${Math.floor(ctx.secondsToDeadline)} s after the ask): ` +
        'no reminder would be sent; shorten every or lengthen the wait.',
    );
  return { every, max };
}

/** `escalate`, or null when absent. Throws a 400 naming the offending field (a step by its index). */
export function parseEscalate(raw: unknown, ctx: FollowUpContext): EscalationStep[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw))
    throw invalid('escalate', 'escalate must be an array of steps [{"after": seconds, "channel", "recipient"}].');
  if (raw.length === 0) throw invalid('escalate', 'escalate must hold at least one step; omit it for none.');
  if (raw.length > FOLLOW_UP_LIMITS.escalateMaxSteps)
    throw invalid(
      'escalate',
      `escalate has ${raw.length} steps; at most ${FOLLOW_UP_LIMITS.escalateMaxSteps} are allowed.`,
    );
  const seen = new Set<string>();
  return raw.map((step: unknown, i): EscalationStep => {
    const at = `escalate[${i}]`;
    if (!isObject(step)) throw invalid(at, `${at} must be an object {"after": seconds, "channel", "recipient"}.`);
    const extra = Object.keys(step).find((k) => !['after', 'channel', 'recipient'].includes(k));
    if (extra !== undefined)
      throw invalid(`${at}.${extra}`, `${at}.${extra} is not an escalation field; use after, channel and recipient.`);
    const { after, channel, recipient } = step;
    if (typeof after !== 'number' || !Number.isFinite(after) || after <= 0)
      throw invalid(`${at}.after`, `${at}.after must be a number of seconds after the ask, greater than 0.`);
    if (after >= ctx.secondsToDeadline)
      throw invalid(
        `${at}.after`,
        `${at}.after (${after} s) is not before the deadline (${Math.floor(ctx.secondsToDeadline)} s after the ask): ` +
          'the question would be closed by then; choose an earlier moment.',
      );
    if (typeof channel !== 'string' || channel === '')
      throw invalid(`${at}.channel`, `${at}.channel is required: the name of a registered channel.`);
    ctx.checkChannel(channel, `${at}.channel`);
    if (recipient !== undefined && recipient !== null && (typeof recipient !== 'string' || recipient === ''))
      throw invalid(`${at}.recipient`, `${at}.recipient must be a non-empty string: the address on ${channel}.`);
    const r = (recipient as string | null | undefined) ?? null;
    const key = `${channel}\n${r ?? ''}`;
    if (seen.has(key))
      throw invalid(`${at}`, `${at} names the same surface (${channel}, ${r ?? 'no recipient'}) as an earlier step.`);
    seen.add(key);
    return { after, channel, recipient: r };
  });
}
