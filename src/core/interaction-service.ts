import type { AuditEvent } from './audit.js';
import { AnswerPath, type AnswerOffer, type AnswerVerdict, notFound } from './answer-path.js';
import { parseAskRequest, type AskContext, type AskRequest } from './ask-request.js';
import { checkPresetAsk } from './preset-ask.js';
import { type AskResponse, type Minted, type MintDeps, mintAsk, responseOf } from './ask-minting.js';
import { checkRecipientsReachable } from './recipient-reach.js';
import { AskgateError, invalid } from './errors.js';
import type { EventHub } from './event-hub.js';
import type {
  ChannelDirectory,
  Clock,
  CoreLogger,
  CoreMetrics,
  CoreSettings,
  FollowUpPort,
  ParkedAsk,
  ParkPort,
  Resolution,
  SettledRun,
  Store,
} from './ports.js';
import { toPublicRecord } from './record.js';
import { SurfaceDelivery } from './surface-delivery.js';
import { EXPIRED_MARKER } from './types.js';
import type { VerifierPort } from './verifier-port.js';
import type {
  AskResult,
  Identity,
  InteractionRecord,
  InteractionStatus,
  StoredInteraction,
  SurfaceTarget,
} from './types.js';

export type { AnswerOffer, AnswerVerdict } from './answer-path.js';
export { answerFacts } from './formats/index.js';

export type { AskResponse } from './ask-minting.js';

/** Everything the core needs, handed in at construction (the ports are defined in `core/ports.ts`). */
export interface ServiceDeps {
  store: Store;
  hub: EventHub;
  channels: ChannelDirectory;
  settings: CoreSettings;
  metrics: CoreMetrics;
  logger: CoreLogger;
  /** The park side, on a durable store; null (or absent) where async asks are refused. */
  parks?: ParkPort | null;
  /** Explains why a verifier binding cannot be used on this gateway (unknown name, bad options), or null. */
  verifiers?: Pick<VerifierPort, 'explain'>;
  /** Reminders and escalations on a durable queue; null (or absent) where `remind` and `escalate` are refused. */
  followUps?: FollowUpPort | null;
  now?: Clock;
}

/**
 * What an interaction is and how it moves: ask, answer, cancel, wait, expire. Every door and channel goes through
 * this one class, so the rules hold whatever surface a request came from.
 */
export class InteractionService {
  private readonly store: Store;
  private readonly hub: EventHub;
  private readonly now: Clock;
  private readonly parks: ParkPort | null;
  private readonly answers: AnswerPath;
  private readonly surfaces: SurfaceDelivery;
  private readonly minting: MintDeps;

  constructor(private readonly deps: ServiceDeps) {
    this.store = deps.store;
    this.hub = deps.hub;
    this.now = deps.now ?? Date.now;
    this.parks = deps.parks ?? null;
    this.minting = { store: deps.store, settings: deps.settings, now: this.now };
    this.surfaces = new SurfaceDelivery({
      store: deps.store,
      channels: deps.channels,
      logger: deps.logger,
      now: this.now,
    });
    this.answers = new AnswerPath({
      store: deps.store,
      metrics: deps.metrics,
      parks: this.parks,
      now: this.now,
      expire: (stored) => this.expire(stored),
      afterResolve: (record, run) => this.afterResolve(record, run),
      afterVote: (record) => this.surfaces.showVotes(record),
    });
  }

  private askContext(): AskContext {
    const { settings, channels } = this.deps;
    return {
      nowMs: this.now(),
      defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
      retentionWaitingMinutes: settings.retentionWaitingMinutes,
      idleTtlSeconds: settings.idleTtlSeconds,
      channel: (name) => channels.get(name)?.capabilities,
      registeredChannels: () => channels.names(),
      allowPrivateWebhooks: settings.webhookAllowPrivate === true,
    };
  }

  /**
   * Checks the fields a preset fixes against the ask rules, writing nothing: a refusal of one of them is the 400 an
   * ask through the preset would get, its field named under `ask.` (core/preset-ask.ts).
   */
  validatePresetAsk(fixed: Readonly<Record<string, unknown>>): void {
    checkPresetAsk(fixed, this.askContext());
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
    const followUp = request.remind !== null ? 'remind' : request.escalate !== null ? 'escalate' : null;
    if (followUp !== null && (this.deps.followUps ?? null) === null) {
      throw new AskgateError(
        'conflict',
        `${followUp} is scheduled on a durable queue that survives a restart, and the in-memory store has none; set REDIS_URL.`,
        { field: followUp },
      );
    }
    return request;
  }

  /** Validates, stores and (for a channel) delivers a question. Nothing is stored when a rule refuses it. */
  async ask(body: unknown, identity: Identity): Promise<AskResponse> {
    const request = this.validate(body);
    if (request.mode === 'async') {
      const [parked] = await this.park([request], identity);
      return parked as AskResponse;
    }
    await checkRecipientsReachable(request, this.deps.channels);
    const minted = await mintAsk(request, identity, null, this.minting);
    const { record } = minted;
    await this.store.create(record);
    this.deps.metrics.asks.inc({ format: record.answer_format, channel: record.channel ?? 'inbox', mode: record.mode });
    await this.scheduleFollowUps(record);
    await this.deliverIfChannel(minted);
    return responseOf(minted);
  }

  /**
   * Parks a run on validated async asks (one, or a fan-out): builds every record, has the park side write records
   * and run in one step (or nothing), then delivers the channel asks. An answer can only come from a delivered
   * message, so delivery follows the write; a failed delivery cancels that ask, which kills the run, and reaches
   * the asker as the 502 of `deliver`.
   */
  async park(requests: AskRequest[], identity: Identity): Promise<ParkedAsk[]> {
    const parks = this.parks;
    if (parks === null || !this.store.durable)
      throw new AskgateError(
        'conflict',
        'an async park needs a durable store that survives a worker hop, and the in-memory store does not; set REDIS_URL.',
        { field: 'mode' },
      );
    for (const request of requests) await checkRecipientsReachable(request, this.deps.channels);
    const run = requests[0]?.run;
    if (run === undefined || run === null)
      throw invalid('run', 'an async ask needs the resumable run that parks: run {"run_id", "resume"}.');
    // Every ask of a park lives in its run's shard (a sharded store), so the claim that readies the run is one step.
    const minted = await Promise.all(requests.map((request) => mintAsk(request, identity, run.run_id, this.minting)));
    await parks.write({ identity, run, records: minted.map((m) => m.record) });
    const parked: ParkedAsk[] = [];
    for (const ask of minted) {
      await this.scheduleFollowUps(ask.record);
      await this.deliverIfChannel(ask);
      parked.push({ ...responseOf(ask), suspended: true });
    }
    return parked;
  }

  /**
   * Schedules a stored question's reminders and escalations before it is delivered (a reply to the delivered message
   * may resolve it at once, and the cancel that follows must find the jobs). A question whose follow-ups could not be
   * scheduled is cancelled: it was asked with them, and is not left pending without them.
   */
  private async scheduleFollowUps(record: StoredInteraction): Promise<void> {
    const followUps = this.deps.followUps ?? null;
    if (followUps === null || (record.remind === undefined && record.escalate === undefined)) return;
    try {
      await followUps.schedule(record);
    } catch (err) {
      await this.withdraw(record.id);
      throw err;
    }
  }

  private async deliverIfChannel({ record, callbackUrl }: Minted): Promise<void> {
    if (record.channel !== null && callbackUrl !== undefined) await this.surfaces.deliverAll(record, callbackUrl);
  }

  /**
   * Adds one more surface to a pending question and sends the question there — how an escalation reaches new
   * people (see core/surfaces.ts). The surface is recorded atomically first (refused once the question resolved,
   * or when it already has that surface), then sent; a reply or receipt there finds the question, and the outcome
   * edit reaches it like every other surface. A failed send is recorded in `deliveries`, not thrown.
   */
  deliverToSurface(
    record: StoredInteraction,
    target: SurfaceTarget,
    options: { callbackUrl?: string } = {},
  ): ReturnType<SurfaceDelivery['deliverToSurface']> {
    return this.surfaces.deliverToSurface(record, target, options.callbackUrl);
  }

  async getStored(id: string): Promise<StoredInteraction> {
    const stored = await this.store.get(id);
    if (stored === null) throw notFound(id);
    return stored;
  }

  async get(id: string): Promise<InteractionRecord> {
    return toPublicRecord(await this.getStored(id));
  }

  /** The question's audit trail, oldest first (docs/audit.md); 404 when the question is unknown or pruned. */
  async events(id: string): Promise<{ items: AuditEvent[] }> {
    const items = await this.store.events(id);
    if (items === null) throw notFound(id);
    return { items };
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
   * The one door every answer goes through (see `core/answer-path.ts`): the answer is checked against its format
   * and schema, then the interaction is claimed atomically; exactly one offer wins, a later one learns
   * `already_answered` and changes nothing.
   */
  offerAnswer(offer: AnswerOffer): Promise<AnswerVerdict> {
    return this.answers.offer(offer);
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
    // An undeliverable question stays pending, but nobody saw it on a channel: its waiter returns at once too.
    const unwatch = this.hub.watch(id, (event) => {
      if (event.record.status !== 'pending' || event.record.undeliverable === true) wake();
    });
    try {
      // The store may start listening only with this watch: read once it hears every event.
      await this.hub.ready();
      const current = await this.get(id);
      if (current.status !== 'pending' || current.undeliverable === true || seconds <= 0) return current;
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
   * Returns the status the interaction has afterwards (null when it no longer exists).
   */
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
    if (record.remind !== undefined || record.escalate !== undefined)
      this.deps.followUps?.cancel(record).catch((err: unknown) => {
        // A step left behind finds the question resolved when it runs, and sends nothing.
        this.deps.logger.warn(
          { interaction: record.id, err: err instanceof Error ? err.message : String(err) },
          'removing follow-ups failed',
        );
      });
    this.surfaces.showOutcome(record);
  }
}
