import type { IncomingHttpHeaders } from 'node:http';
import { AskgateError } from './errors.js';
import { parseTicket, ticketMatches } from './ids.js';
import type { AnswerVerdict, InteractionService } from './interaction-service.js';
import type { CoreLogger, Store } from './ports.js';
import type { StoredInteraction } from './types.js';
import type { VerifyResult } from './verify-result.js';
import type { VerifierPort } from './verifier-port.js';

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
   * reason, which depends on the request only; a verifier that cannot run (it throws, or answers something that is
   * not a verdict) is `verifier_unavailable` (500) with a constant message, and the reason goes to the log (with the
   * interaction id, never the ticket).
   */
  async verify(record: StoredInteraction, request: SignedRequest): Promise<void> {
    const binding = record.verifier_binding;
    if (binding === null) return;
    let verdict: unknown;
    try {
      verdict = await this.deps.verifiers.verify({
        binding,
        rawBody: request.rawBody,
        headers: request.headers,
        now: this.now(),
        env: this.deps.env,
      });
    } catch (err) {
      throw this.unavailable(record, binding.name, err instanceof Error ? err.message : String(err));
    }
    const result = verdict as VerifyResult | null | undefined;
    if (result?.ok === true) return;
    if (result?.ok === false && typeof result.reason === 'string')
      throw new AskgateError(
        'verifier_refused',
        `the ${binding.name} verifier bound to this question refused the callback: ${result.reason}`,
      );
    // Fail closed: a verifier that returns no verdict has not accepted anything.
    throw this.unavailable(
      record,
      binding.name,
      'the verifier returned no verdict ({ok: true} or {ok: false, reason}).',
    );
  }

  private unavailable(record: StoredInteraction, verifier: string, why: string): AskgateError {
    this.deps.logger.error(
      { interaction: record.id, verifier, err: why },
      'a bound verifier cannot run; the callback door answers 500 until an operator fixes it',
    );
    return new AskgateError(
      'verifier_unavailable',
      'the verifier bound to this question cannot run on this gateway; an operator must fix its configuration.',
    );
  }

  /**
   * The machine path of a POST, in the door's order: the bound verifier runs first (refused: `verifier_refused`,
   * cannot run: `verifier_unavailable`), only then the state is told (answered: `already_answered`; unknown,
   * expired or cancelled: `not_found`), and only then the answer is read (`answerOf`, which may refuse the body)
   * and offered (a schema or pin mismatch: `invalid_answer`, the ticket stays live). The callback door's JSON
   * path and the confirmation bridge both answer through it; refusals are `AskgateError`s with their codes.
   */
  async submit(
    state: TicketState,
    request: SignedRequest,
    answerOf: (record: StoredInteraction) => unknown,
  ): Promise<AnswerVerdict> {
    if (state.kind === 'unknown') throw ticketNotFound();
    await this.verify(state.record, request);
    if (state.kind === 'answered') return 'already_answered';
    if (state.kind === 'closed') throw ticketNotFound();
    return this.answer(state.record, answerOf(state.record));
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
