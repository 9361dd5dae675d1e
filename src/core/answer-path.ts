import { AskgateError } from './errors.js';
import { answerFacts, checkAnswer, claimWorthwhile } from './formats/index.js';
import type { AnswerFacts, Clock, CoreMetrics, ParkPort, SettledRun, Store } from './ports.js';
import {
  type AskResult,
  CALLBACK_SURFACE,
  type InteractionStatus,
  type ReplyTo,
  type StoredInteraction,
  type Surface,
} from './types.js';

/** One answer offered by any surface: the answer door, the inbox, the callback door or a channel webhook. */
export interface AnswerOffer {
  interactionId: string;
  answer: unknown;
  replyTo?: ReplyTo | null;
  params?: Record<string, string> | null;
  surface: Surface;
  answeredBy: string;
  /**
   * The record, when the caller has just read it (the callback door, a webhook that looked the question up): the
   * answer path then reads nothing and takes check → claim. It must be the record of `interactionId`.
   */
  record?: StoredInteraction;
}

/** `voted`: a quorum question counted this approver's vote and is still pending. */
export type AnswerVerdict = 'answered' | 'already_answered' | 'voted';

export function notFound(id: string): AskgateError {
  return new AskgateError('not_found', `interaction ${id} does not exist (or was pruned after its idle TTL).`);
}

/** The refusal of an answer to a question that is closed (expired, or cancelled by its asker). */
export function closedError(stored: Pick<StoredInteraction, 'id' | 'status'>): AskgateError {
  if (stored.status === 'cancelled')
    return new AskgateError('gone', `interaction ${stored.id} was cancelled by its asker.`, {
      extra: { status: 'cancelled' },
    });
  return new AskgateError('gone', `interaction ${stored.id} expired before it was answered.`, {
    extra: { status: 'expired' },
  });
}

/**
 * A verifier-bound question is answered only through its callback door, where the verifier runs: any other door
 * (the answer door, the inbox, the CLI, a channel) would let an `answer`-scope holder confirm what the outside
 * system never signed.
 */
export function refuseUnlessCallback(
  stored: Pick<StoredInteraction, 'id' | 'verifier_binding'>,
  surface: Surface,
): void {
  if (stored.verifier_binding === null || surface === 'callback') return;
  throw new AskgateError(
    'callback_only',
    `interaction ${stored.id} is bound to the ${stored.verifier_binding.name} verifier and is answered only ` +
      'through its signed callback; no other door may answer it.',
  );
}

export interface AnswerPathDeps {
  store: Store;
  metrics: CoreMetrics;
  parks: ParkPort | null;
  now: Clock;
  /** Expires a question whose deadline passed; returns its status afterwards (null when it no longer exists). */
  expire(stored: StoredInteraction): Promise<InteractionStatus | null>;
  /** The side effects of a resolution (resume job, outcome edit), which never hold up the answer. */
  afterResolve(record: StoredInteraction, run?: SettledRun): void;
  /** A counted vote that left the question pending (live counts on its surfaces); never holds up the answer. */
  afterVote?(record: StoredInteraction): void;
}

/**
 * The one answer path. Which way an offer goes is decided before any round trip:
 * - the caller holds the record → the format's check, then one claim (`resolve`);
 * - it does not, and some fast format could take the answer (see `formats/`) → one claim that checks the answer
 *   against the stored format itself (`Store.claimAnswer`); a question it cannot check comes back for the next way;
 * - otherwise → read, the format's check, one claim.
 * Exactly one offer wins; a later one learns `already_answered` and changes nothing.
 */
export class AnswerPath {
  constructor(private readonly deps: AnswerPathDeps) {}

  async offer(offer: AnswerOffer): Promise<AnswerVerdict> {
    if (offer.record !== undefined) return this.checkThenClaim(offer.record, offer);
    const { store } = this.deps;
    const facts = store.claimAnswer === undefined ? null : answerFacts(offer.answer);
    if (facts === null || !claimWorthwhile(facts))
      return this.checkThenClaim(await this.read(offer.interactionId), offer);
    return this.claimChecked(offer, facts);
  }

  private async read(id: string): Promise<StoredInteraction> {
    const stored = await this.deps.store.get(id);
    if (stored === null) throw notFound(id);
    return stored;
  }

  /** One round trip: the store's claim checks a text / confirm / select answer against the stored format. */
  private async claimChecked(offer: AnswerOffer, facts: AnswerFacts): Promise<AnswerVerdict> {
    const claimAnswer = this.deps.store.claimAnswer?.bind(this.deps.store);
    if (claimAnswer === undefined) return this.checkThenClaim(await this.read(offer.interactionId), offer);
    const answeredAt = new Date(this.deps.now()).toISOString();
    const result = answerResult(offer, offer.answer, answeredAt);
    const outcome = await claimAnswer(
      offer.interactionId,
      { status: 'answered', result, resolvedAt: answeredAt },
      facts,
    );
    switch (outcome.kind) {
      case 'not_found':
        throw notFound(offer.interactionId);
      case 'resolved':
        // The claim never resolves a bound question (it is external, which the claim does not check).
        this.count(outcome.record, offer, answeredAt);
        this.deps.afterResolve(outcome.record, outcome.run);
        return 'answered';
      case 'not_pending':
        // Before any state is reported: a bound question tells another door nothing, not even that it was answered.
        refuseUnlessCallback(outcome.record, offer.surface);
        if (outcome.record.status === 'answered') return 'already_answered';
        throw closedError(outcome.record);
      case 'invalid':
        // The format's own check words the refusal (its field and reason). The claim's text fact is conservative
        // (UTF-16 units), so a long astral string it refused may pass here: then the check-then-claim way takes it.
        refuseUnlessCallback(outcome.record, offer.surface);
        checkAnswer(outcome.record, offer.answer);
        return this.checkThenClaim(outcome.record, offer);
      case 'unchecked':
        // A form, an external ask, an ask to the caller or a passed deadline: the record is here, so no read.
        return this.checkThenClaim(outcome.record, offer);
    }
  }

  /** Check → claim, from a record in hand: the way of forms, external asks, caller asks and passed deadlines. */
  private async checkThenClaim(stored: StoredInteraction, offer: AnswerOffer): Promise<AnswerVerdict> {
    // Before any state is reported: a bound question tells another door nothing, not even that it was answered.
    refuseUnlessCallback(stored, offer.surface);
    if (stored.status === 'answered') return 'already_answered';
    if (stored.status !== 'pending') throw closedError(stored);
    const { store, now, parks } = this.deps;
    if (Date.parse(stored.deadline_at) <= now()) {
      // Expire it on the spot; an answer that won the claim first (between our read and now) still wins.
      const status = await this.deps.expire(stored);
      if (status === 'answered') return 'already_answered';
      throw closedError({ id: stored.id, status: status ?? 'expired' });
    }
    if (stored.to === 'caller') await parks?.mayAnswer(stored, offer.answeredBy);
    const refusal = approverRefusal(stored, offer);
    if (refusal !== null) {
      // Recorded in the question's trail (who, and on which surface); the question stays pending.
      await store.appendEvent(stored.id, { type: 'answer_refused', surface: offer.surface, by: offer.answeredBy });
      throw refusal;
    }
    const answer = checkAnswer(stored, offer.answer);
    const answeredAt = new Date(now()).toISOString();
    const result = answerResult(offer, answer, answeredAt);
    const resolution = { status: 'answered' as const, result, resolvedAt: answeredAt };
    // A quorum question: the answer is this approver's vote, counted and (at the quorum) resolved in one step.
    const outcome =
      stored.quorum === undefined
        ? await store.resolve(stored.id, resolution)
        : await store.castVote(
            stored.id,
            { by: offer.answeredBy, answer: answer === true, surface: offer.surface, at: answeredAt },
            resolution,
          );
    if (outcome.kind === 'voted') {
      this.deps.afterVote?.(outcome.record);
      return 'voted';
    }
    // A second vote by the same approver changes nothing; it reads as the vote already counted.
    if (outcome.kind === 'already_voted') return 'voted';
    if (outcome.kind === 'not_found') throw notFound(stored.id);
    if (outcome.kind === 'not_pending') {
      if (outcome.record.status === 'answered') return 'already_answered';
      throw closedError(outcome.record);
    }
    this.count(stored, offer, answeredAt);
    this.deps.afterResolve(outcome.record, outcome.run);
    return 'answered';
  }

  private count(stored: StoredInteraction, offer: AnswerOffer, answeredAt: string): void {
    const { metrics } = this.deps;
    metrics.answers.inc({ format: stored.answer_format, surface: offer.surface });
    metrics.timeToAnswer.observe(
      { format: stored.answer_format, surface: offer.surface },
      (Date.parse(answeredAt) - Date.parse(stored.created_at)) / 1000,
    );
  }
}

/**
 * With `approvers`, only they may answer: a token identity by its name (the answer door, the inbox, the CLI), a chat
 * user by `<channel>:<user id>` — the platform's verified id that the channel puts in `answeredBy`. The callback
 * door carries no identity, so it never answers such a question. Refused before the answer is checked or counted.
 */
export function approverRefusal(
  stored: Pick<StoredInteraction, 'id' | 'approvers'>,
  offer: Pick<AnswerOffer, 'answeredBy' | 'surface'>,
): AskgateError | null {
  if (stored.approvers === undefined) return null;
  const who = canonicalIdentity(offer.answeredBy);
  if (offer.surface !== CALLBACK_SURFACE && stored.approvers.some((a) => canonicalIdentity(a) === who)) return null;
  return new AskgateError(
    'not_an_approver',
    `interaction ${stored.id} may be answered by its approvers only, and ${
      offer.surface === CALLBACK_SURFACE ? 'the callback door names nobody' : `${offer.answeredBy} is not one of them`
    }.`,
  );
}

/** One spelling per identity: a WhatsApp number with or without its `+` (`whatsapp:447…` = `whatsapp:+447…`). */
function canonicalIdentity(identity: string): string {
  return identity.replace(/^whatsapp:\+/, 'whatsapp:');
}

function answerResult(offer: AnswerOffer, answer: unknown, answeredAt: string): AskResult {
  return {
    answer,
    reply_to: offer.replyTo ?? null,
    params: offer.params ?? null,
    answered_by: offer.answeredBy,
    answered_at: answeredAt,
    surface: offer.surface,
  };
}
