import type { AskRequest } from './ask-request.js';
import { invalid } from './errors.js';
import { hashTicketSecret, newInteractionId } from './ids.js';
import type { Identity, StoredInteraction } from './types.js';

/** Where a fresh record's id comes from: the CSPRNG by default, or the id the store placed in a shard. */
export interface RecordIds {
  interactionId(): string;
}

const RANDOM_IDS: RecordIds = { interactionId: newInteractionId };

/**
 * Whether an ask needs a callback ticket (an external ask, a channel ask, a link), and so a public base URL. Throws
 * `invalid_request` naming the field when it needs one and the gateway has none.
 */
export function needsTicket(request: AskRequest, publicBaseUrl: string | null): boolean {
  const why =
    request.answer_format === 'external'
      ? 'answer_format'
      : request.channel !== null
        ? 'channel'
        : request.link
          ? 'link'
          : null;
  if (why === null) return false;
  if (publicBaseUrl === null) {
    throw invalid(
      why,
      `${why === 'answer_format' ? 'an external ask' : why === 'channel' ? 'a channel ask' : 'link'} needs a callback ` +
        'URL, and INTERACTIONS_PUBLIC_BASE_URL is not set on this gateway; an operator must set it.',
    );
  }
  return true;
}

/** The public callback URL of a ticket under the gateway's base URL. */
export function callbackUrl(publicBaseUrl: string, ticket: string): string {
  return `${publicBaseUrl}/api/interactions/callback/${ticket}`;
}

/**
 * The stored record of a validated ask: pending, its deadline fixed, only the hash of its ticket's secret kept
 * (`ticketSecret`; the ticket itself is `ticketOf(secret, record.id)`, ids.ts).
 */
export function buildRecord(
  request: AskRequest,
  identity: Identity,
  ticketSecret: string | null,
  nowMs: number,
  ids: RecordIds = RANDOM_IDS,
): StoredInteraction {
  const deadlineMs = request.expiry_at !== null ? request.expiry_at.getTime() : nowMs + (request.timeout ?? 0) * 1000;
  const record: StoredInteraction = {
    id: ids.interactionId(),
    status: 'pending',
    question: request.question,
    answer_format: request.answer_format,
    choices: request.choices,
    schema: request.schema,
    group_id: request.group_id,
    channel: request.channel,
    recipient: request.recipient,
    mode: request.mode,
    created_at: new Date(nowMs).toISOString(),
    deadline_at: new Date(deadlineMs).toISOString(),
    asked_by: identity.name,
    media: request.media,
    link: request.link,
    verifier: request.verifier === null ? null : { name: request.verifier.name },
    to: request.to,
    payload: request.payload,
    on_expiry: request.on_expiry,
    run_id: request.run?.run_id ?? null,
    result: null,
    resolved_at: null,
    ticket_hash: ticketSecret === null ? null : hashTicketSecret(ticketSecret),
    verifier_binding: request.verifier,
    delivery: null,
    ...(request.remind === null ? {} : { remind: request.remind }),
    ...(request.escalate === null ? {} : { escalate: request.escalate }),
  };
  // Members of multi-surface and approver questions only, so a plain record carries no extra keys.
  if (request.extra_surfaces.length > 0)
    record.extra_surfaces = request.extra_surfaces.map((s) => ({
      channel: s.channel,
      recipient: s.recipient,
      delivery: null,
    }));
  if (request.approvers !== null) record.approvers = [...request.approvers];
  if (request.quorum !== null) record.quorum = { ...request.quorum };
  if (request.action !== null) record.action = request.action;
  if (request.decisions !== null) record.decisions = [...request.decisions];
  return record;
}
