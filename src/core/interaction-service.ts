import { MAX_TEXT_ANSWER, checkAnswer } from './answer.js';
import { parseAskRequest, type AskContext, type AskRequest } from './ask-request.js';
import { AskgateError, invalid } from './errors.js';
import type { EventHub } from './event-hub.js';
import { hashTicket, newInteractionId, newTicket } from './ids.js';
import { toPublicRecord } from './record.js';
import { EXPIRED_MARKER } from './types.js';
import type {
  AskResult,
  Identity,
  InteractionRecord,
  InteractionStatus,
  ReplyTo,
  StoredInteraction,
  Surface,
  VerifierBinding,
} from './types.js';
import type { ChannelRegistry } from '../../channels/registry.js';
import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ParkPort } from '../park/port.js';
import type { AnswerFacts, Resolution, SettledRun, Store } from '../store/store.js';

/**
 * What the store's one-step claim needs to know of an answer (see `Store.claimAnswer`), or null to take the
 * read → validate → claim path: a string that is not well-formed UTF-16 would not reach Redis as itself. The text
 * fact is conservative (UTF-16 units ≥ characters): a long string of astral characters is refused by the claim,
 * and then accepted by the full check, which claims it.
 */
export function answerFacts(answer: unknown): AnswerFacts | null {
  if (typeof answer !== 'string') return { boolean: typeof answer === 'boolean', text: false, choice: null };
  // String.prototype.isWellFormed is in Node 20; the compiler's lib (ES2022) does not declare it yet.
  if (!(answer as string & { isWellFormed(): boolean }).isWellFormed()) return null;
  return { boolean: false, text: answer.length >= 1 && answer.length <= MAX_TEXT_ANSWER, choice: answer };
}

function notFound(id: string): AskgateError {
  return new AskgateError('not_found', `interaction ${id} does not exist (or was pruned after its idle TTL).`);
}

/**
 * A verifier-bound question is answered only through its callback door, where the verifier runs: any other door
 * (the answer door, the inbox, the CLI, a channel) would let an `answer`-scope holder confirm what the outside
 * system never signed.
 */
function refuseUnlessCallback(stored: Pick<StoredInteraction, 'id' | 'verifier_binding'>, surface: Surface): void {
  if (stored.verifier_binding === null || surface === 'callback') return;
  throw new AskgateError(
    'callback_only',
    `interaction ${stored.id} is bound to the ${stored.verifier_binding.name} verifier and is answered only through its signed callback; no other door may answer it.`,
  );
}

/** One answer offered by any surface: the inbox door, the callback door or a channel webhook. */
export interface AnswerOffer {
  interactionId: string;
  answer: unknown;
  replyTo?: ReplyTo | null;
  params?: Record<string, string> | null;
  surface: Surface;
  answeredBy: string;
}

export type AnswerVerdict = 'answered' | 'already_answered';

/** The response to an ask: the record, the callback URL for the asker alone, and `suspended` for a park. */
export type AskResponse = InteractionRecord & { suspended?: true };

export interface ServiceDeps {
  store: Store;
  hub: EventHub;
  channels: ChannelRegistry;
  config: Pick<Config, 'publicBaseUrl' | 'defaultTimeoutSeconds' | 'retentionWaitingMinutes' | 'idleTtlSeconds'>;
  metrics: Metrics;
  logger: Logger;
  /** Explains why a verifier binding cannot be used on this gateway (unknown name, bad options), or null. */
  verifiers?: { explain(binding: VerifierBinding): string | null };
  now?: () => number;
}

/**
 * What an interaction is and how it moves: ask, answer, cancel, wait, expire. Every door and channel goes through
 * this one class, so the rules hold whatever surface a request came from.
 */
export class InteractionService {
  private readonly store: Store;
  private readonly hub: EventHub;
  private readonly now: () => number;
  /** Set by the gateway on a durable store (see src/park/); async asks go there. */
  private parks: ParkPort | null = null;

  constructor(private readonly deps: ServiceDeps) {
    this.store = deps.store;
    this.hub = deps.hub;
    this.now = deps.now ?? Date.now;
  }

  private askContext(): AskContext {
    const { config, channels } = this.deps;
    return {
      nowMs: this.now(),
      defaultTimeoutSeconds: config.defaultTimeoutSeconds,
      retentionWaitingMinutes: config.retentionWaitingMinutes,
      idleTtlSeconds: config.idleTtlSeconds,
      channel: (name) => channels.get(name)?.capabilities,
      registeredChannels: () => channels.names(),
    };
  }

  /** Wires the park service in (the gateway does, on a durable store). */
  attachParks(parks: ParkPort): void {
    this.parks = parks;
  }

  /**
   * Checks an ask body against every rule, writing nothing; an async one also needs a durable store (409 before
   * anything is written on the in-memory store).
   */
  validate(body: unknown): AskRequest {
    const request = parseAskRequest(body, this.askContext());
    // Refuse a binding no process here could run now, rather than minting a ticket the door would 500 on.
    const badBinding = request.verifier === null ? null : (this.deps.verifiers?.explain(request.verifier) ?? null);
    if (badBinding !== null) throw invalid('verifier', badBinding);
    if (request.mode === 'async' && (!this.store.durable || this.parks === null)) {
      throw new AskgateError(
        'conflict',
        'an async park needs a durable store that survives a worker hop, and the in-memory store does not; set REDIS_URL.',
        { field: 'mode' },
      );
    }
    return request;
  }

  /** Validates, stores and (for a channel) delivers a question. Nothing is stored when a rule refuses it. */
  async ask(body: unknown, identity: Identity): Promise<AskResponse> {
    const request = this.validate(body);
    if (request.mode === 'async' && this.parks !== null) {
      const [parked] = await this.parks.park([request], identity);
      return parked as AskResponse;
    }
    const ticket = this.needsTicket(request) ? newTicket() : null;
    const stored = this.buildRecord(request, identity, ticket);
    await this.store.create(stored);
    this.deps.metrics.asks.inc({ format: stored.answer_format, channel: stored.channel ?? 'inbox', mode: stored.mode });
    const callbackUrl = ticket === null ? undefined : this.callbackUrl(ticket);
    if (request.channel !== null && callbackUrl !== undefined) await this.deliver(stored, request.channel, callbackUrl);
    const response: AskResponse = toPublicRecord(stored);
    if (callbackUrl !== undefined) response.callback_url = callbackUrl;
    return response;
  }

  /** Whether the ask needs a callback ticket (public for the park service, which builds records the same way). */
  needsTicket(request: AskRequest): boolean {
    const why =
      request.answer_format === 'external'
        ? 'answer_format'
        : request.channel !== null
          ? 'channel'
          : request.link
            ? 'link'
            : null;
    if (why === null) return false;
    if (this.deps.config.publicBaseUrl === null) {
      throw invalid(
        why,
        `${why === 'answer_format' ? 'an external ask' : why === 'channel' ? 'a channel ask' : 'link'} needs a callback URL, and INTERACTIONS_PUBLIC_BASE_URL is not set on this gateway; an operator must set it.`,
      );
    }
    return true;
  }

  callbackUrl(ticket: string): string {
    return `${this.deps.config.publicBaseUrl}/api/interactions/callback/${ticket}`;
  }

  buildRecord(request: AskRequest, identity: Identity, ticket: string | null): StoredInteraction {
    const nowMs = this.now();
    const deadlineMs = request.expiry_at !== null ? request.expiry_at.getTime() : nowMs + (request.timeout ?? 0) * 1000;
    return {
      id: newInteractionId(),
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
      ticket_hash: ticket === null ? null : hashTicket(ticket),
      verifier_binding: request.verifier,
      delivery: null,
    };
  }

  /** A failed delivery cancels the question (nobody could answer it) and reaches the asker as a 502. */
  async deliver(stored: StoredInteraction, channelName: string, callbackUrl: string): Promise<void> {
    const channel = this.deps.channels.get(channelName);
    if (channel === undefined) throw invalid('channel', `channel "${channelName}" is not registered.`);
    try {
      const refs = await channel.deliver(stored, callbackUrl);
      await this.store.setDelivery(stored.id, refs);
      stored.delivery = refs;
    } catch (err) {
      await this.store.resolve(stored.id, {
        status: 'cancelled',
        result: null,
        resolvedAt: new Date(this.now()).toISOString(),
      });
      const reason = err instanceof Error ? err.message : String(err);
      throw new AskgateError('channel_delivery_failed', `delivery on channel "${channelName}" failed: ${reason}`, {
        extra: { channel: channelName, interaction_id: stored.id },
        cause: err,
      });
    }
  }

  async getStored(id: string): Promise<StoredInteraction> {
    const stored = await this.store.get(id);
    if (stored === null) throw notFound(id);
    return stored;
  }

  async get(id: string): Promise<InteractionRecord> {
    return toPublicRecord(await this.getStored(id));
  }

  async listPending(query: {
    limit: number;
    cursor: string | null;
    groupId: string | null;
  }): Promise<{ items: InteractionRecord[]; next_cursor: string | null }> {
    const page = await this.store.listPending(query);
    return { items: page.items.map(toPublicRecord), next_cursor: page.nextCursor };
  }

  /**
   * The one door every answer goes through. Checks the answer against the format and schema, then claims the
   * interaction atomically: exactly one offer wins; a later one learns `already_answered` and changes nothing.
   */
  async offerAnswer(offer: AnswerOffer): Promise<AnswerVerdict> {
    const store = this.store;
    const facts = store.claimAnswer === undefined ? null : answerFacts(offer.answer);
    if (facts === null || store.claimAnswer === undefined)
      return this.answerRecord(await this.getStored(offer.interactionId), offer);
    // One round trip in the common case: the store's claim checks a text / confirm / select answer itself.
    const answeredAt = new Date(this.now()).toISOString();
    const result = this.answerResult(offer, offer.answer, answeredAt);
    const outcome = await store.claimAnswer(
      offer.interactionId,
      { status: 'answered', result, resolvedAt: answeredAt },
      facts,
    );
    // The claim never resolves a bound question (it is external, which the claim does not check), but it reports one.
    if (outcome.kind !== 'not_found' && outcome.kind !== 'resolved')
      refuseUnlessCallback(outcome.record, offer.surface);
    switch (outcome.kind) {
      case 'not_found':
        throw notFound(offer.interactionId);
      case 'not_pending':
        if (outcome.record.status === 'answered') return 'already_answered';
        this.refuseIfClosed(outcome.record);
        return this.answerRecord(outcome.record, offer); // unreachable: every non-pending status is answered or closed
      case 'invalid':
        // The refusal the full check gives (its message and field); should it accept after all, the full path claims.
        checkAnswer(outcome.record, offer.answer);
        return this.answerRecord(outcome.record, offer);
      case 'unchecked':
        return this.answerRecord(outcome.record, offer);
      case 'resolved':
        this.answered(outcome.record, offer, answeredAt);
        this.afterResolve(outcome.record, outcome.run);
        return 'answered';
    }
  }

  /** Read → validate → claim, from a record already read: the path of forms, external asks, caller asks and expiry. */
  private async answerRecord(stored: StoredInteraction, offer: AnswerOffer): Promise<AnswerVerdict> {
    // Before any state is reported: a bound question tells another door nothing, not even that it was answered.
    refuseUnlessCallback(stored, offer.surface);
    if (stored.status === 'answered') return 'already_answered';
    this.refuseIfClosed(stored);
    if (Date.parse(stored.deadline_at) <= this.now()) {
      // Expire it on the spot; an answer that won the claim first (between our read and now) still wins.
      const status = await this.expire(stored);
      if (status === 'answered') return 'already_answered';
      this.refuseIfClosed({ ...stored, status: status ?? 'expired' });
    }
    if (stored.to === 'caller') await this.parks?.mayAnswer(stored, offer.answeredBy);
    const answer = checkAnswer(stored, offer.answer);
    const answeredAt = new Date(this.now()).toISOString();
    const result = this.answerResult(offer, answer, answeredAt);
    const outcome = await this.store.resolve(stored.id, { status: 'answered', result, resolvedAt: answeredAt });
    if (outcome.kind === 'not_found') throw notFound(stored.id);
    if (outcome.kind === 'not_pending') {
      if (outcome.record.status === 'answered') return 'already_answered';
      this.refuseIfClosed(outcome.record);
    }
    this.answered(stored, offer, answeredAt);
    if (outcome.kind === 'resolved') this.afterResolve(outcome.record, outcome.run);
    return 'answered';
  }

  private answerResult(offer: AnswerOffer, answer: unknown, answeredAt: string): AskResult {
    return {
      answer,
      reply_to: offer.replyTo ?? null,
      params: offer.params ?? null,
      answered_by: offer.answeredBy,
      answered_at: answeredAt,
      surface: offer.surface,
    };
  }

  private answered(stored: StoredInteraction, offer: AnswerOffer, answeredAt: string): void {
    this.deps.metrics.answers.inc({ format: stored.answer_format, surface: offer.surface });
    this.deps.metrics.timeToAnswer.observe(
      { format: stored.answer_format, surface: offer.surface },
      (Date.parse(answeredAt) - Date.parse(stored.created_at)) / 1000,
    );
  }

  private refuseIfClosed(stored: Pick<StoredInteraction, 'id' | 'status'>): void {
    if (stored.status === 'expired')
      throw new AskgateError('gone', `interaction ${stored.id} expired before it was answered.`, {
        extra: { status: 'expired' },
      });
    if (stored.status === 'cancelled')
      throw new AskgateError('gone', `interaction ${stored.id} was cancelled by its asker.`, {
        extra: { status: 'cancelled' },
      });
  }

  /** The asker withdraws a pending question. */
  async cancel(id: string, identity: Identity): Promise<InteractionRecord> {
    const stored = await this.getStored(id);
    if (stored.asked_by !== identity.name)
      throw new AskgateError('forbidden', `only the asker (${stored.asked_by}) may cancel interaction ${id}.`);
    const outcome = await this.store.resolve(id, {
      status: 'cancelled',
      result: null,
      resolvedAt: new Date(this.now()).toISOString(),
    });
    if (outcome.kind === 'not_found') throw new AskgateError('not_found', `interaction ${id} does not exist.`);
    if (outcome.kind === 'not_pending') {
      throw new AskgateError(
        'conflict',
        `interaction ${id} is already ${outcome.record.status}; only a pending question can be cancelled.`,
        {
          extra: { status: outcome.record.status },
        },
      );
    }
    this.deps.metrics.cancels.inc({ format: stored.answer_format });
    this.afterResolve(outcome.record, outcome.run);
    return toPublicRecord(outcome.record);
  }

  /** Waits up to `seconds` for the interaction to leave `pending`, woken by the store's notification. */
  async waitForResult(id: string, seconds: number): Promise<InteractionRecord> {
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    // Watch before reading, so a resolution between the read and the watch is not missed.
    const unwatch = this.hub.watch(id, (event) => {
      if (event.record.status !== 'pending') wake();
    });
    try {
      const current = await this.get(id);
      if (current.status !== 'pending' || seconds <= 0) return current;
      const timer = setTimeout(wake, seconds * 1000);
      await woken;
      clearTimeout(timer);
      return await this.get(id);
    } finally {
      unwatch();
    }
  }

  /**
   * Marks a pending interaction expired (idempotent: losing the race to an answer changes nothing). A parked ask
   * with `on_expiry: "resume"` resolves with the expired marker as its answer, which its run resumes with.
   */
  /** Returns the status the interaction has afterwards (null when it no longer exists). */
  async expire(stored: StoredInteraction): Promise<InteractionStatus | null> {
    const resolvedAt = new Date(this.now()).toISOString();
    // The record's result needs an answerer and a surface; the marker names askgate, and the inbox door's surface.
    const marker: AskResult | null =
      stored.mode === 'async' && stored.on_expiry === 'resume'
        ? {
            answer: EXPIRED_MARKER,
            reply_to: null,
            params: null,
            answered_by: 'askgate',
            answered_at: resolvedAt,
            surface: 'inbox',
          }
        : null;
    const resolution: Resolution = { status: 'expired', result: marker, resolvedAt };
    const outcome = await this.store.resolve(stored.id, resolution);
    if (outcome.kind === 'resolved') {
      this.deps.metrics.expiries.inc({ format: stored.answer_format });
      this.afterResolve(outcome.record, outcome.run);
    }
    return outcome.kind === 'not_found' ? null : outcome.record.status;
  }

  /**
   * Cancels a pending ask on askgate's own behalf (a killed run's other asks), with the channel's outcome edit.
   * Idempotent: an ask that is no longer pending is left as it is.
   */
  async withdraw(id: string): Promise<void> {
    const outcome = await this.store.resolve(id, {
      status: 'cancelled',
      result: null,
      resolvedAt: new Date(this.now()).toISOString(),
    });
    if (outcome.kind === 'resolved') this.afterResolve(outcome.record, outcome.run);
  }

  /** Expires every interaction whose deadline has passed; returns how many it popped. */
  async expireDue(max = 200): Promise<number> {
    const ids = await this.store.popDue(this.now(), max);
    for (const id of ids) {
      const stored = await this.store.get(id);
      if (stored !== null && stored.status === 'pending') await this.expire(stored);
    }
    return ids.length;
  }

  /** Side effects of a resolution that must not hold up the caller: the run's resume job, the channel's outcome edit. */
  private afterResolve(record: StoredInteraction, run?: SettledRun): void {
    if (run !== undefined) this.parks?.settled(run);
    if (record.channel === null) return;
    const channel = this.deps.channels.get(record.channel);
    if (channel?.showOutcome === undefined) return;
    channel.showOutcome(record).catch((err: unknown) => {
      this.deps.logger.warn(
        { interaction: record.id, channel: record.channel, err: err instanceof Error ? err.message : String(err) },
        'outcome edit failed',
      );
    });
  }
}
