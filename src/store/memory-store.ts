import type { AuditEvent, NewAuditEvent } from '../core/audit.js';
import { AskgateError } from '../core/errors.js';
import { findSurface, isFirstSurface, sameSurface, surfacesOf, viewOn } from '../core/surfaces.js';
import type {
  DeliveryReceipt,
  InteractionEvent,
  ReceiptOutcome,
  StoredInteraction,
  StoredSurface,
  SurfaceTarget,
  Vote,
} from '../core/types.js';
import { appendEntry, appendSeal, expandTrail, failureDetail, terminalEntry, trailEntry } from './audit-trail.js';
import { expandDelivery } from './delivery-refs.js';
import { applyReceipt, quorumReached, parseCursor, pendingExpiresAt } from './common.js';
import { ListenerSet, type EventListener } from './listeners.js';
import { MemoryOperatorState } from './memory-operator-state.js';
import { timeMs, toPublicRecord } from './record-codec.js';
import { SortedIndex } from './sorted-index.js';
import type {
  AddSurfaceOutcome,
  FixedWindowHit,
  PendingPage,
  PendingQuery,
  PresetVersion,
  Resolution,
  ResolveOutcome,
  Store,
  StoreOptions,
  VoteOutcome,
} from './store.js';

interface Entry {
  record: StoredInteraction;
  /** When the entry is pruned (epoch ms): deadline + idle TTL while pending, resolution + idle TTL after. */
  expiresAt: number;
  /** The audit trail and its seal, in the stored form the Redis store keeps (audit-trail.ts); '' when empty. */
  trail: string;
  seal: string;
}

/** The longest pause between sweeps of expired entries; reads prune lazily in between. */
const MAX_SWEEP_MS = 60_000;

/**
 * The embedded store: one process, nothing survives a restart (`durable: false`). It keeps the same semantics as
 * `RedisStore` so both pass one contract suite: records are copied in and out (callers cannot mutate the store),
 * the pending order is a sequence number, resolved records stay readable for the idle TTL, and events are delivered
 * asynchronously.
 *
 * Expired entries are pruned lazily on every read and by a sweep timer that is `unref()`'d, so it never keeps the
 * process alive.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly durable = false;

  private readonly idleTtlMs: number;
  private readonly entries = new Map<string, Entry>();
  /** `<channel>\n<ref>` → id: the reverse index of `delivery.ref` (a newline cannot occur in a channel name). */
  private readonly deliveries = new Map<string, string>();
  private readonly pending = new SortedIndex();
  private readonly groups = new Map<string, SortedIndex>();
  /** `<channel>\n<recipient>` → the pending questions asked of that recipient on that channel. */
  private readonly recipients = new Map<string, SortedIndex>();
  private readonly deadlines = new SortedIndex();
  private readonly listeners = new ListenerSet();
  /** Flood-control windows, presets and the seen-set (memory-operator-state.ts). */
  private readonly operator = new MemoryOperatorState();
  private readonly sweeper: NodeJS.Timeout;
  private seq = 0;

  constructor(options: StoreOptions) {
    this.idleTtlMs = options.idleTtlSeconds * 1000;
    this.sweeper = setInterval(() => this.sweep(Date.now()), Math.min(this.idleTtlMs, MAX_SWEEP_MS));
    this.sweeper.unref();
  }

  async create(record: StoredInteraction): Promise<void> {
    const now = Date.now();
    const deadlineMs = timeMs(record.deadline_at, 'deadline_at');
    if (this.live(record.id, now) !== undefined) {
      throw new AskgateError('conflict', `interaction ${record.id} already exists; ids must be unique.`);
    }
    const stored = copyIn(record);
    const seq = ++this.seq;
    const expiresAt = pendingExpiresAt(deadlineMs, now, this.idleTtlMs);
    this.entries.set(stored.id, { record: stored, expiresAt, trail: '', seal: '' });
    this.pending.add(stored.id, seq);
    if (stored.group_id !== null) this.groupIndex(stored.group_id).add(stored.id, seq);
    for (const surface of surfacesOf(stored)) this.indexRecipient(stored.id, surface, seq);
    this.deadlines.add(stored.id, deadlineMs);
    this.emit({ type: 'interaction.created', record: toPublicRecord(structuredClone(stored)) });
  }

  async get(id: string): Promise<StoredInteraction | null> {
    const entry = this.live(id, Date.now());
    return entry === undefined ? null : structuredClone(entry.record);
  }

  async resolve(id: string, resolution: Resolution): Promise<ResolveOutcome> {
    const now = Date.now();
    const entry = this.live(id, now);
    if (entry === undefined) return { kind: 'not_found' };
    if (entry.record.status !== 'pending') return { kind: 'not_pending', record: structuredClone(entry.record) };
    // Everything below runs without an await, so no other caller can interleave: the claim is exactly-once.
    entry.record.status = resolution.status;
    entry.record.result = resolution.result === null ? null : structuredClone(resolution.result);
    entry.record.resolved_at = resolution.resolvedAt;
    entry.expiresAt = now + this.idleTtlMs;
    entry.trail = appendEntry(entry.trail, terminalEntry(resolution.status, now));
    this.unindex(entry.record);
    this.emit({ type: `interaction.${resolution.status}`, record: toPublicRecord(structuredClone(entry.record)) });
    return { kind: 'resolved', record: structuredClone(entry.record) };
  }

  async setDelivery(id: string, delivery: Record<string, string>, surface?: SurfaceTarget): Promise<void> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) throw new AskgateError('not_found', `interaction ${id} does not exist (or was pruned).`);
    const record = entry.record;
    const extra =
      surface === undefined || isFirstSurface(record, surface)
        ? undefined
        : record.extra_surfaces?.find((s) => sameSurface(s, surface));
    if (surface !== undefined && !isFirstSurface(record, surface) && extra === undefined)
      throw new AskgateError('not_found', `interaction ${id} has no surface ${surface.channel}:${surface.recipient}.`);
    const replaced = (extra === undefined ? record.delivery : extra.delivery)?.['ref'];
    // A delivery without `ref` takes the one its references imply, as the Redis store reads it (delivery-refs.ts).
    const stored = expandDelivery({ ...delivery });
    if (extra === undefined) record.delivery = stored;
    else extra.delivery = stored;
    const channel = extra?.channel ?? record.channel;
    const ref = stored['ref'];
    // A re-sent message replaces the old one's lookup entry; a resolved question's messages are not looked up.
    if (replaced !== undefined && channel !== null && this.deliveries.get(deliveryKey(channel, replaced)) === id)
      this.deliveries.delete(deliveryKey(channel, replaced));
    const delivered = { type: 'delivered' as const, ...(ref === undefined ? {} : { detail: { ref } }) };
    entry.trail = appendEntry(
      entry.trail,
      trailEntry(channel === null ? delivered : { ...delivered, surface: channel }, Date.now()),
    );
    if (ref !== undefined && channel !== null && record.status === 'pending')
      this.deliveries.set(deliveryKey(channel, ref), id);
  }

  async addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) return 'not_found';
    const record = entry.record;
    if (record.status !== 'pending') return 'not_pending';
    if (findSurface(record, surface) !== undefined) return 'duplicate';
    const added: StoredSurface = { channel: surface.channel, recipient: surface.recipient, delivery: null };
    record.extra_surfaces = [...(record.extra_surfaces ?? []), added];
    this.indexRecipient(id, added, ++this.seq);
    return 'added';
  }

  async castVote(id: string, vote: Vote, resolution: Resolution): Promise<VoteOutcome> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) return { kind: 'not_found' };
    const record = entry.record;
    if (record.status !== 'pending') return { kind: 'not_pending', record: structuredClone(record) };
    // No await from here to the end: counting, deciding and the claim are one step, as the Redis script's.
    if (record.votes?.some((v) => v.by === vote.by) === true)
      return { kind: 'already_voted', record: structuredClone(record) };
    record.votes = [...(record.votes ?? []), { ...vote }];
    entry.trail = appendEntry(
      entry.trail,
      trailEntry(
        { type: 'vote', surface: vote.surface, by: vote.by, detail: { answer: vote.answer } },
        Date.parse(vote.at),
      ),
    );
    if (!quorumReached(record, vote.answer)) return { kind: 'voted', record: structuredClone(record) };
    return this.resolve(id, resolution);
  }

  async pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]> {
    const now = Date.now();
    const wanted = new Set(recipients);
    const rows = [...wanted].flatMap(
      (r) => this.recipients.get(deliveryKey(channel, r))?.after(0, Number.MAX_SAFE_INTEGER) ?? [],
    );
    const found = new Map<string, StoredInteraction>();
    for (const row of rows.sort((a, b) => a.score - b.score)) {
      const record = this.live(row.id, now)?.record;
      if (record === undefined || record.status !== 'pending' || found.has(record.id)) continue;
      // The view of the surface this recipient was asked on (a question may reach one person on two surfaces).
      const view = viewOn(structuredClone(record), channel, (s) => s.recipient !== null && wanted.has(s.recipient));
      if (view !== null) found.set(record.id, view);
    }
    return [...found.values()];
  }

  async recordReceipt(id: string, ref: string, receipt: DeliveryReceipt): Promise<ReceiptOutcome> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) return 'unknown';
    const record = entry.record;
    // The surface whose message has this ref: the first surface's, or one of the extra surfaces'.
    const extra = record.extra_surfaces?.find((s) => s.delivery?.['ref'] === ref);
    const delivery = extra?.delivery ?? (record.delivery?.['ref'] === ref ? record.delivery : null);
    if (delivery === null || delivery === undefined) return 'unknown';
    // One process, no await between the read and the write: the same step the Redis script takes atomically.
    const next = applyReceipt(delivery, receipt);
    if (next === null) return 'unchanged';
    if (extra !== undefined) extra.delivery = next;
    else record.delivery = next;
    if (receipt.state === 'failed') {
      const failed = { type: 'delivery_failed' as const, detail: failureDetail(receipt) };
      const channel = extra?.channel ?? record.channel;
      const event = channel === null ? failed : { ...failed, surface: channel };
      entry.trail = appendEntry(entry.trail, trailEntry(event, Date.now()));
    }
    if (receipt.state !== 'failed' || entry.record.status !== 'pending') return 'moved';
    this.emit({ type: 'interaction.delivery_failed', record: toPublicRecord(structuredClone(entry.record)) });
    return 'failed';
  }

  async appendEvent(id: string, event: NewAuditEvent): Promise<boolean> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) return false;
    entry.trail = appendEntry(entry.trail, trailEntry(event, Date.now()));
    return true;
  }

  async events(id: string): Promise<AuditEvent[] | null> {
    const entry = this.live(id, Date.now());
    if (entry === undefined) return null;
    // No await between the read and the seal: the compare-and-set the Redis store needs is implicit here.
    const expanded = expandTrail(entry.record, entry.trail, entry.seal);
    if (expanded.unsealedHashes !== '') entry.seal = appendSeal(entry.seal, expanded.unsealedHashes);
    return expanded.items;
  }

  async findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null> {
    const id = this.deliveries.get(deliveryKey(channel, ref));
    const entry = id === undefined ? undefined : this.live(id, Date.now());
    return entry === undefined
      ? null
      : viewOn(structuredClone(entry.record), channel, (s) => s.delivery?.['ref'] === ref);
  }

  async listPending(query: PendingQuery): Promise<PendingPage> {
    const now = Date.now();
    const after = parseCursor(query.cursor);
    const index = query.groupId === null ? this.pending : this.groups.get(query.groupId);
    if (index === undefined) return { items: [], nextCursor: null };
    // One extra row tells whether another page exists, so the last page never points at an empty one.
    const rows = index.after(after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const items: StoredInteraction[] = [];
    for (const row of page) {
      const entry = this.live(row.id, now);
      if (entry !== undefined) items.push(structuredClone(entry.record));
    }
    const last = page[page.length - 1];
    return { items, nextCursor: rows.length > query.limit && last !== undefined ? String(last.score) : null };
  }

  async popDue(nowMs: number, max: number): Promise<string[]> {
    return this.deadlines.popUpTo(nowMs, max);
  }

  subscribe(listener: EventListener): () => void {
    return this.listeners.add(listener);
  }

  /** Events are emitted in this process: a listener hears every one from the moment it subscribes. */
  eventsReady(): Promise<void> {
    return Promise.resolve();
  }

  async hitWindow(key: string, windowSeconds: number): Promise<FixedWindowHit> {
    return this.operator.hitWindow(key, windowSeconds);
  }

  async appendPreset(name: string, entry: Omit<PresetVersion, 'version'>): Promise<number> {
    return this.operator.appendPreset(name, entry);
  }

  async presetVersions(name: string): Promise<PresetVersion[]> {
    return this.operator.presetVersions(name);
  }

  async markSeen(key: string, ttlMs: number): Promise<boolean> {
    return this.operator.markSeen(key, ttlMs);
  }

  async unmarkSeen(key: string): Promise<void> {
    this.operator.unmarkSeen(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.listeners.clear();
  }

  private emit(event: InteractionEvent): void {
    this.listeners.emit(event);
  }

  /** The entry of `id` unless it is absent or past its expiry (then it is pruned on the spot). */
  private live(id: string, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry;
    this.prune(entry.record);
    return undefined;
  }

  /** Indexes a question under one surface's recipient (how a reply or a STOP finds a person's questions). */
  private indexRecipient(id: string, surface: SurfaceTarget, seq: number): void {
    if (surface.recipient === null) return;
    const key = deliveryKey(surface.channel, surface.recipient);
    const index = this.recipients.get(key) ?? new SortedIndex();
    index.add(id, seq);
    this.recipients.set(key, index);
  }

  private groupIndex(groupId: string): SortedIndex {
    let index = this.groups.get(groupId);
    if (index === undefined) {
      index = new SortedIndex();
      this.groups.set(groupId, index);
    }
    return index;
  }

  /** Drops a record from the pending list, its group, the deadline index and the recipient index. */
  private unindex(record: StoredInteraction): void {
    this.pending.remove(record.id);
    this.deadlines.remove(record.id);
    for (const surface of surfacesOf(record)) {
      if (surface.recipient === null) continue;
      const key = deliveryKey(surface.channel, surface.recipient);
      const index = this.recipients.get(key);
      index?.remove(record.id);
      if (index !== undefined && index.size === 0) this.recipients.delete(key);
    }
    if (record.group_id === null) return;
    const group = this.groups.get(record.group_id);
    group?.remove(record.id);
    // Empty groups are dropped so a stream of one-off group ids does not leak indexes.
    if (group !== undefined && group.size === 0) this.groups.delete(record.group_id);
  }

  private prune(record: StoredInteraction): void {
    this.entries.delete(record.id);
    // A resolved question's messages lead to it until it is pruned (the Redis store: its `rr:` windows).
    for (const surface of surfacesOf(record)) {
      const ref = surface.delivery?.['ref'];
      if (ref !== undefined && this.deliveries.get(deliveryKey(surface.channel, ref)) === record.id)
        this.deliveries.delete(deliveryKey(surface.channel, ref));
    }
    this.unindex(record);
  }

  private sweep(now: number): void {
    for (const entry of this.entries.values()) {
      if (entry.expiresAt <= now) this.prune(entry.record);
    }
    this.operator.sweep(now);
  }
}

function deliveryKey(channel: string, ref: string): string {
  return `${channel}\n${ref}`;
}

/** A private copy of a record as the store keeps it: the minted callback URL is never stored. */
function copyIn(record: StoredInteraction): StoredInteraction {
  const { callback_url: _url, ...rest } = structuredClone(record);
  return rest;
}
