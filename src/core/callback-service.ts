import type { IncomingHttpHeaders } from 'node:http';
import { AskgateError } from './errors.js';
import { parseTicket, ticketMatches } from './ids.js';
import type { AnswerVerdict, InteractionService } from './interaction-service.js';
import type { CoreLogger, Store } from './ports.js';
import type { StoredInteraction } from './types.js';
import { VerificationFailed, type VerifierPort } from './verifier-port.js';

/** A ticket as the callback door sees it. `closed` is expired or cancelled (or past its deadline, not yet swept). */
export type TicketState =
  | { kind: 'unknown' }
  | { kind: 'live'; record: StoredInteraction }
  | { kind: 'answered'; record: StoredInteraction }
  | { kind: 'closed'; record: StoredInteraction };

/** The request facts a verifier needs. */
export interface SignedRequest {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
}

export interface CallbackServiceDeps {
  store: Store;
  service: InteractionService;
  verifiers: VerifierPort;
  env: Readonly<Record<string, string | undefined>>;
  logger: CoreLogger;
  now?: () => number;
}

/**
 * The rules of the public callback door, apart from HTTP: resolve a ticket to its question, run the verifier
 * bound to it, and hand the answer to `InteractionService.offerAnswer` (the one answer path). The ticket itself
 * is only ever hashed here; it is never stored, logged or put into an error.
 */
export class CallbackService {
  private readonly now: () => number;

  constructor(private readonly deps: CallbackServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The question behind a ticket and where it stands. */
  async lookup(ticket: string): Promise<TicketState> {
    const record = await this.findRecord(ticket);
    if (record === null) return { kind: 'unknown' };
    if (record.status === 'answered') return { kind: 'answered', record };
    if (record.status !== 'pending' || Date.parse(record.deadline_at) <= this.now()) return { kind: 'closed', record };
    return { kind: 'live', record };
  }

  /**
   * The record a ticket opens, or null. A ticket (`<secret>.<id>`) names its record: it is read by id and the
   * secret's hash compared, in constant time, with the one it holds. Every miss is the same null: the door's one 404.
   */
  private async findRecord(ticket: string): Promise<StoredInteraction | null> {
    const parsed = parseTicket(ticket);
    if (parsed === null) return null;
    const record = await this.deps.store.get(parsed.interactionId);
    return record !== null && ticketMatches(parsed.secret, record.ticket_hash) ? record : null;
  }

  /**
   * Runs the verifier bound to the question, if any. A refusal is `verifier_refused` (401) with the verifier's
   * reason, which depends on the request only; a verifier that cannot run is `verifier_unavailable` (500) with a
   * constant message, and the reason goes to the log (with the interaction id, never the ticket).
   */
  async verify(record: StoredInteraction, request: SignedRequest): Promise<void> {
    const binding = record.verifier_binding;
    if (binding === null) return;
    try {
      await this.deps.verifiers.verify({
        binding,
        rawBody: request.rawBody,
        headers: request.headers,
        now: this.now(),
        env: this.deps.env,
      });
    } catch (err) {
      if (err instanceof VerificationFailed) {
        throw new AskgateError(
          'verifier_refused',
          `the ${binding.name} verifier bound to this question refused the callback: ${err.message}`,
        );
      }
      this.deps.logger.error(
        { interaction: record.id, verifier: binding.name, err: err instanceof Error ? err.message : String(err) },
        'a bound verifier cannot run; the callback door answers 500 until an operator fixes it',
      );
      throw new AskgateError(
        'verifier_unavailable',
        'the verifier bound to this question cannot run on this gateway; an operator must fix its configuration.',
      );
    }
  }

  /**
   * Offers the answer through the one answer path. The schema (and any const pin) is checked there before the
   * claim, so a mismatch is `invalid_answer` and the ticket stays live. A question that closed meanwhile is
   * `not_found`, as the door answers for an expired ticket.
   */
  async answer(record: StoredInteraction, answer: unknown): Promise<AnswerVerdict> {
    const answeredBy = record.verifier_binding === null ? 'callback' : `verifier:${record.verifier_binding.name}`;
    try {
      // The door has just read the record: the answer path checks and claims it without reading it again.
      return await this.deps.service.offerAnswer({
        interactionId: record.id,
        answer,
        surface: 'callback',
        answeredBy,
        record,
      });
    } catch (err) {
      if (err instanceof AskgateError && (err.code === 'gone' || err.code === 'not_found')) throw ticketNotFound();
      throw err;
    }
  }
}

/** The door's one 404 for a ticket that does not resolve: unknown, pruned, expired or cancelled. */
export function ticketNotFound(): AskgateError {
  return new AskgateError('not_found', 'this callback ticket does not resolve: it is unknown, expired or pruned.');
}
