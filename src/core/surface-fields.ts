import { invalid } from './errors.js';
import type { AnswerFormat, Quorum, SurfaceTarget } from './types.js';
import type { RecipientField } from './channel-fit.js';

/**
 * The ask fields of questions with several surfaces and named answerers — `deliver`, `approvers`, `quorum` — each
 * refusal naming its field (an item by its index). Shared by the ask body's rules (`ask-request.ts`) and the
 * published schema (`ask-body-schema.ts`).
 */
export const SURFACE_LIMITS = { deliverMax: 10, approversMax: 50, approverLength: 200, recipientLength: 200 } as const;

/**
 * `deliver`: 1..10 distinct `{channel, recipient}` surfaces, not with `channel`/`recipient`. `checkChannel` refuses
 * a channel the gateway does not run (or one that cannot take this question), naming the field it is given.
 */
export function parseDeliver(
  body: Record<string, unknown>,
  checkChannel: (name: string, field: string, target?: RecipientField) => void,
): SurfaceTarget[] | null {
  const raw = body['deliver'];
  if (raw === undefined || raw === null) return null;
  if (body['channel'] !== undefined || body['recipient'] !== undefined)
    throw invalid(
      'deliver',
      'deliver replaces channel and recipient: put every surface in deliver, or ask on one channel with channel and recipient.',
    );
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > SURFACE_LIMITS.deliverMax)
    throw invalid(
      'deliver',
      `deliver must be a list of 1..${SURFACE_LIMITS.deliverMax} surfaces, each {"channel", "recipient"}.`,
    );
  const surfaces: SurfaceTarget[] = [];
  raw.forEach((item: unknown, i) => {
    const at = `deliver[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw invalid(at, `${at} must be an object {"channel", "recipient"}.`);
    const entry = item as Record<string, unknown>;
    const extra = Object.keys(entry).find((k) => k !== 'channel' && k !== 'recipient');
    if (extra !== undefined)
      throw invalid(`${at}.${extra}`, `${at}.${extra} is not a surface field; use channel and recipient.`);
    const channel = entry['channel'];
    if (typeof channel !== 'string' || channel === '' || channel.length > 100)
      throw invalid(`${at}.channel`, `${at}.channel must be the name of a registered channel.`);
    const recipient = entry['recipient'];
    if (typeof recipient !== 'string' || recipient === '' || recipient.length > SURFACE_LIMITS.recipientLength)
      throw invalid(
        `${at}.recipient`,
        `${at}.recipient must be the address on that channel (chat id, user id, phone), 1..${SURFACE_LIMITS.recipientLength} characters.`,
      );
    checkChannel(channel, `${at}.channel`, { value: recipient, field: `${at}.recipient` });
    const twin = surfaces.findIndex((s) => s.channel === channel && s.recipient === recipient);
    if (twin !== -1)
      throw invalid(at, `${at} repeats deliver[${twin}] (${channel} ${recipient}); list each surface once.`);
    surfaces.push({ channel, recipient });
  });
  return surfaces;
}

/** `approvers`: 1..50 distinct identities — token identity names, or `<channel>:<user id>`. */
export function parseApprovers(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > SURFACE_LIMITS.approversMax)
    throw invalid(
      'approvers',
      `approvers must be a list of 1..${SURFACE_LIMITS.approversMax} identities: token identity names, ` +
        'or "<channel>:<user id>" such as "slack:U0123".',
    );
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    const at = `approvers[${i}]`;
    if (typeof item !== 'string' || item.trim() === '' || item.length > SURFACE_LIMITS.approverLength)
      throw invalid(
        at,
        `${at} must be an identity of 1..${SURFACE_LIMITS.approverLength} characters: a token identity name, or "<channel>:<user id>".`,
      );
    if (seen.has(item)) throw invalid(at, `${at} repeats "${item}"; list each approver once.`);
    seen.add(item);
    return item;
  });
}

/** `quorum`: confirm only, with approvers; `approve` (and `reject`, default 1) at most the number of approvers. */
export function parseQuorum(raw: unknown, format: AnswerFormat, approvers: string[] | null): Quorum | null {
  if (raw === undefined || raw === null) return null;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('quorum', 'quorum must be an object {"approve": N, "reject"?: M}.');
  const q = raw as Record<string, unknown>;
  const extra = Object.keys(q).find((k) => k !== 'approve' && k !== 'reject');
  if (extra !== undefined)
    throw invalid(`quorum.${extra}`, `quorum.${extra} is not a quorum field; use approve and reject.`);
  if (format !== 'confirm')
    throw invalid('quorum', 'quorum applies to answer_format "confirm" only: approvers vote yes or no.');
  if (approvers === null)
    throw invalid('quorum', 'quorum needs approvers: the people whose yes and no votes are counted.');
  const count = (field: 'approve' | 'reject', fallback: number | null): number => {
    const v = q[field] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw invalid(`quorum.${field}`, `quorum.${field} must be a whole number of votes, at least 1.`);
    if (v > approvers.length)
      throw invalid(
        `quorum.${field}`,
        `quorum.${field} asks for ${v} votes but there are ${approvers.length} approvers; it can never be reached.`,
      );
    return v;
  };
  return { approve: count('approve', null), reject: count('reject', 1) };
}
