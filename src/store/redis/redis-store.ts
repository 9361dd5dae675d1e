import type { Cluster, Redis } from 'ioredis';
import type { AuditEvent, NewAuditEvent } from '../../core/audit.js';
import { AskgateError } from '../../core/errors.js';
import type {
  DeliveryReceipt,
  InteractionRecord,
  ReceiptOutcome,
  StoredInteraction,
  SurfaceTarget,
  Vote,
} from '../../core/types.js';
import { fixedWindow, parseCursor, pendingExpiresAt, resetIn } from '../common.js';
import type { Keys } from '../keys.js';
import { ListenerSet, type EventListener } from '../listeners.js';
import { trailEntry } from '../audit-trail.js';
import { decodeRecord, encodeRecord, timeMs, toPublicRecord } from '../record-codec.js';
import type {
  AddSurfaceOutcome,
  AnswerClaimOutcome,
  AnswerFacts,
  FixedWindowHit,
  PendingPage,
  PendingQuery,
  PresetVersion,
  Resolution,
  ResolveOutcome,
  Store,
  VoteOutcome,
} from '../store.js';
import { type ClaimDeps, claimInteraction } from './claim.js';
import type { RedisStoreOptions } from './store-options.js';
import { RedisConnections, redactUrl } from './connections.js';
import { recipientName } from './lookups.js';
import { surfacesOf } from '../../core/surfaces.js';
import { readSealedEvents } from './audit-reader.js';
import { pingWithin } from './index-upkeep.js';
import type { ScriptClient } from './scripts/index.js';
import { parseEventMessage } from './event-message.js';
import { EventSubscription } from './event-subscription.js';
import { RedisSurfaceOps } from './surface-ops.js';

/** A page of one store's pending rows with their sequence numbers (`RedisStore.pendingRows`). */
export interface PendingRows {
  rows: Array<{ record: StoredInteraction; seq: number }>;
  next: number | null;
}

export type { RedisStoreOptions } from './store-options.js';

/**
 * The durable store: every process on one Redis shares records, the pending list, deadlines and events.
 *
 * Each transition is one Lua script (`scripts/`, registered by `scripts/index.ts`), so it is atomic and publishes
 * its event in the same step. Its two connections come from the process's factory (connections.ts): the command
 * connection runs commands; the subscriber listens on the events channel (a subscribed connection can run nothing
 * else) and fans each message out to this process's listeners. Both reconnect on their
 * own after Redis restarts; events published while the subscriber is disconnected are lost (pub/sub semantics).
 */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly durable = true;

  private readonly keys: Keys;
  private readonly client: ScriptClient;
  private readonly subscriber: Redis | Cluster;
  private readonly idleTtlMs: number;
  private readonly pingTimeoutMs: number;
  private readonly runRetentionMs: number;
  private readonly listeners = new ListenerSet();
  private readonly eventChannel: EventSubscription;
  private readonly surfaces: RedisSurfaceOps;
  private readonly claimDeps: ClaimDeps;

  private constructor(
    private readonly connections: RedisConnections,
    private readonly ownsConnections: boolean,
    options: RedisStoreOptions,
  ) {
    this.client = connections.command();
    this.subscriber = connections.subscriber();
    this.keys = options.keys ?? connections.keys;
    this.eventChannel = new EventSubscription(this.subscriber, this.keys.events, options.eventsLingerMs);
    this.idleTtlMs = options.idleTtlSeconds * 1000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 2000;
    this.runRetentionMs = options.runRetentionMs ?? 10_080 * 60_000;
    this.claimDeps = {
      client: this.client,
      keys: this.keys,
      connections,
      idleTtlMs: this.idleTtlMs,
      runRetentionMs: this.runRetentionMs,
      run: (call) => this.run(call),
    };
    this.surfaces = new RedisSurfaceOps({
      client: this.client,
      keys: this.keys,
      idleTtlMs: this.idleTtlMs,
      run: (call) => this.run(call),
      get: (id) => this.get(id),
    });
  }

  /**
   * Connects both connections (the events channel is subscribed on the first listener); rejects with
   * `store_unavailable` when Redis is unreachable.
   */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const owns = options.connections === undefined;
    const connections =
      options.connections ??
      new RedisConnections({
        url: options.url,
        ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
        ...(options.onConnectionError === undefined ? {} : { onError: options.onConnectionError }),
        ...(options.redisOptions === undefined ? {} : { redisOptions: options.redisOptions }),
      });
    const store = new RedisStore(connections, owns, options);
    try {
      await Promise.all([connections.connect(store.client), connections.connect(store.subscriber)]);
      store.subscriber.on('message', (channel: string, message: string) => store.dispatch(channel, message));
    } catch (error) {
      if (owns) await connections.close();
      if (error instanceof AskgateError) throw error;
      throw new AskgateError(
        'store_unavailable',
        `cannot reach Redis at ${redactUrl(connections.url)}; check REDIS_URL.`,
        {
          cause: error,
        },
      );
    }
    return store;
  }

  async create(record: StoredInteraction): Promise<void> {
    const { envelope, schema } = encodeRecord(record);
    const now = Date.now();
    const deadlineMs = timeMs(record.deadline_at, 'deadline_at');
    const recordKey = this.keys.interaction(record.id);
    // Every surface asked of a recipient is indexed by recipient (a reply, a STOP, the web chat find it there).
    const recipients = surfacesOf(record)
      .filter((s) => s.recipient !== null)
      .map((s) => recipientName(s.channel, s.recipient as string));
    const code = await this.run(() =>
      this.client.askgateCreate(
        recordKey,
        this.keys.pending,
        this.keys.deadlines,
        this.keys.seq,
        // Absent optional keys are stood in for by the record key, so every KEYS entry stays in one cluster slot.
        record.group_id === null ? recordKey : this.keys.group(record.group_id),
        schema === null ? recordKey : this.keys.schema(schema.hash),
        record.id,
        envelope,
        pendingExpiresAt(deadlineMs, now, this.idleTtlMs),
        deadlineMs,
        record.group_id === null ? '' : '1',
        schema?.json ?? '',
        this.keys.events,
        now,
        this.keys.recipientBucketPrefix,
        ...recipients,
      ),
    );
    if (code === -1) throw new AskgateError('conflict', `interaction ${record.id} already exists; ids must be unique.`);
  }

  async get(id: string): Promise<StoredInteraction | null> {
    const reply = await this.run(() => this.client.askgateGet(this.keys.interaction(id), this.keys.schemaPrefix));
    return reply === null ? null : decodeRecord(id, reply[0], reply[1]);
  }

  /** The resolve script's claim (claim.ts): `check` and `choice` are its answer check, `vote` a quorum vote. */
  private claim(
    id: string,
    resolution: Resolution,
    check: string,
    choice: string,
    vote?: Vote,
  ): Promise<AnswerClaimOutcome | VoteOutcome> {
    return claimInteraction(this.claimDeps, { id, resolution, check, choice, vote });
  }

  async resolve(id: string, resolution: Resolution): Promise<ResolveOutcome> {
    return (await this.claim(id, resolution, '', '')) as ResolveOutcome;
  }

  async castVote(id: string, vote: Vote, resolution: Resolution): Promise<VoteOutcome> {
    return (await this.claim(id, resolution, '', '', vote)) as VoteOutcome;
  }

  claimAnswer(id: string, resolution: Resolution, facts: AnswerFacts): Promise<AnswerClaimOutcome> {
    const check = `v${facts.boolean ? 'b' : ''}${facts.text ? 't' : ''}${facts.choice !== null ? 's' : ''}`;
    return this.claim(id, resolution, check, facts.choice ?? '') as Promise<AnswerClaimOutcome>;
  }

  setDelivery(id: string, delivery: Record<string, string>, surface?: SurfaceTarget): Promise<void> {
    return this.surfaces.setDelivery(id, delivery, surface);
  }

  addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome> {
    return this.surfaces.addSurface(id, surface);
  }

  recordReceipt(id: string, ref: string, receipt: DeliveryReceipt): Promise<ReceiptOutcome> {
    return this.surfaces.recordReceipt(id, ref, receipt);
  }

  async appendEvent(id: string, event: NewAuditEvent): Promise<boolean> {
    const entry = trailEntry(event, Date.now());
    const code = await this.run(() => this.client.askgateAuditAppend(this.keys.interaction(id), entry));
    return code === 1;
  }

  async events(id: string): Promise<AuditEvent[] | null> {
    return readSealedEvents(this.client, this.keys, id, (call) => this.run(call));
  }

  pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]> {
    return this.surfaces.pendingFor(channel, recipients);
  }

  findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null> {
    return this.surfaces.findByDelivery(channel, ref);
  }

  async listPending(query: PendingQuery): Promise<PendingPage> {
    const page = await this.pendingRows(parseCursor(query.cursor), query.limit, query.groupId);
    return { items: page.rows.map((row) => row.record), nextCursor: page.next === null ? null : String(page.next) };
  }

  /**
   * One page of this store's pending list (or a group's) after sequence number `after`, each row with its sequence
   * number: what the shard router merges (sharded-store.ts). `next` is the last sequence number the page walked past
   * when another page follows, else null.
   */
  async pendingRows(after: number, limit: number, groupId: string | null): Promise<PendingRows> {
    const index = groupId === null ? this.keys.pending : this.keys.group(groupId);
    const [next, ...rows] = await this.run(() =>
      this.client.askgateListPending(
        index,
        this.keys.deadlines,
        after,
        limit,
        this.keys.interactionPrefix,
        this.keys.schemaPrefix,
        groupId === null ? 'b' : '',
      ),
    );
    return {
      rows: rows.map(([id, envelope, seq, schema]) => ({
        record: decodeRecord(id, envelope, schema),
        seq: Number(seq),
      })),
      next: next === null ? null : Number(next),
    };
  }

  async popDue(nowMs: number, max: number): Promise<string[]> {
    return this.run(() => this.client.askgatePopDue(this.keys.deadlines, this.keys.pending, nowMs, max));
  }

  /** The earliest deadline still in the deadline index (epoch ms), or null when none: the shard router's merge key. */
  async earliestDeadline(): Promise<number | null> {
    // Each bucket is scored by its earliest remaining deadline, so the index's first score is the store's earliest.
    const head = await this.run(() => this.client.zrange(this.keys.deadlines, 0, 0, 'WITHSCORES'));
    return head[1] === undefined ? null : Number(head[1]);
  }

  /** The events channel is subscribed while this store has a listener (event-subscription.ts). */
  subscribe(listener: EventListener): () => void {
    const remove = this.listeners.add(listener);
    this.eventChannel.hold();
    let held = true;
    return () => {
      remove();
      if (held) this.eventChannel.release();
      held = false;
    };
  }

  eventsReady(): Promise<void> {
    return this.run(() => this.eventChannel.ready());
  }

  async hitWindow(key: string, windowSeconds: number): Promise<FixedWindowHit> {
    // The window follows this process's clock: processes are assumed NTP-close, and flood control tolerates skew.
    const now = Date.now();
    const window = fixedWindow(now, windowSeconds);
    const count = await this.run(() =>
      this.client.askgateHitWindow(this.keys.window(key, window.start), window.endsAtMs),
    );
    return { count, resetInSeconds: resetIn(window.endsAtMs - now, windowSeconds) };
  }

  async appendPreset(name: string, entry: Omit<PresetVersion, 'version'>): Promise<number> {
    // RPUSH answers the list's new length, which is the new version's number: one atomic step, no counter.
    return this.run(() => this.client.rpush(this.keys.preset(name), JSON.stringify(entry)));
  }

  async presetVersions(name: string): Promise<PresetVersion[]> {
    const items = await this.run(() => this.client.lrange(this.keys.preset(name), 0, -1));
    return items.map((item, i) => ({ version: i + 1, ...(JSON.parse(item) as Omit<PresetVersion, 'version'>) }));
  }

  async markSeen(key: string, ttlMs: number): Promise<boolean> {
    const set = await this.run(() => this.client.set(this.keys.seen(key), '1', 'PX', Math.max(1, ttlMs), 'NX'));
    return set === 'OK';
  }

  async unmarkSeen(key: string): Promise<void> {
    await this.run(() => this.client.del(this.keys.seen(key)));
  }

  async ping(): Promise<void> {
    await pingWithin(this.client, this.pingTimeoutMs, (call) => this.run(call));
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.eventChannel.close();
    this.subscriber.removeAllListeners('message');
    if (this.ownsConnections) await this.connections.close();
    // A shared subscriber stays subscribed until its factory closes; this store no longer dispatches.
  }

  /** One message on the events channel → every listener of this process. */
  private dispatch(channel: string, message: string): void {
    if (channel !== this.keys.events) return;
    try {
      const wire = parseEventMessage(message);
      // Decoded on first read, once: most events (an answer nobody streams or waits for) are never looked at, and
      // decoding every one cost the answer door a record's parse and copies per request.
      let record: InteractionRecord | null = null;
      this.listeners.emit({
        type: wire.type,
        get record(): InteractionRecord {
          record ??= toPublicRecord(decodeRecord(wire.id, wire.envelope, wire.schema));
          return record;
        },
      });
    } catch (error) {
      process.emitWarning(`askgate: dropped a malformed event on ${channel}: ${String(error)}`, 'AskgateStoreWarning');
    }
  }

  /** Runs a Redis call, turning connection and script failures into `store_unavailable`. */
  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof AskgateError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new AskgateError('store_unavailable', `Redis command failed: ${reason}`, { cause: error });
    }
  }
}
