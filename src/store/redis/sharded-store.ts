import { randomInt } from 'node:crypto';
import type { AuditEvent, NewAuditEvent } from '../../core/audit.js';
import { AskgateError, invalid } from '../../core/errors.js';
import { interactionIdInShard, shardOfId, shardOfName } from '../../core/shard-ids.js';
import type { AskPlacement } from '../../core/store-port.js';
import type {
  DeliveryReceipt,
  InteractionEvent,
  ReceiptOutcome,
  StoredInteraction,
  SurfaceTarget,
  Vote,
} from '../../core/types.js';
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
import { RedisConnections } from './connections.js';
import { type PendingRows, RedisStore, type RedisStoreOptions } from './redis-store.js';
import { RunLocator } from './run-locator.js';

/**
 * The store of a deployment spread over N shards (ASKGATE_SHARDS > 1; docs/scaling.md, "Shards"): one RedisStore per
 * shard, each naming its shard's keys and sharing the process's connections, their scripts unchanged, so every Lua
 * step still touches one shard (one hash tag, one cluster slot). This router sends each call that names an
 * interaction to the shard its id says (core/shard-ids.ts) and merges the lookups that name none.
 *
 * - An id whose mark names no configured shard is routed to shard 0, where no such key ever exists (shard 0 holds
 *   plain ids only): it is not found there, exactly as a missing id is, never a crash.
 * - Deployment-wide state (flood windows, presets, seen-set claims) stays in shard 0, as with one shard.
 * - Lookups by recipient, delivered message and ticket hash ask every shard at once and merge; the pending list and
 *   a group's merge every shard's pages oldest first with a cursor of one position per shard (`listPending`).
 * - `popDue` merges every shard's due deadlines, earliest first, as one store hands them out.
 */
export class ShardedStore implements Store {
  readonly kind = 'redis' as const;
  readonly durable = true;

  constructor(
    /** One store per shard, index = shard. */
    private readonly shards: readonly RedisStore[],
    private readonly runs: RunLocator,
    /** A factory this store made itself and closes; null when its owner (the gateway) closes it. */
    private readonly ownConnections: RedisConnections | null = null,
  ) {
    if (shards.length < 2) throw new Error('ShardedStore needs at least two shards; use RedisStore for one.');
  }

  /**
   * Connects one RedisStore per shard of `connections.shardKeys` (or of a factory made here with `shards` shards),
   * all on the same command and subscriber connections; rejects with `store_unavailable` as RedisStore does.
   */
  static async connect(options: RedisStoreOptions & { shards: number }): Promise<ShardedStore> {
    const own =
      options.connections === undefined
        ? new RedisConnections({
            url: options.url,
            shards: options.shards,
            ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
            ...(options.onConnectionError === undefined ? {} : { onError: options.onConnectionError }),
            ...(options.redisOptions === undefined ? {} : { redisOptions: options.redisOptions }),
          })
        : null;
    const connections = (options.connections ?? own) as RedisConnections;
    if (connections.shardKeys.length !== options.shards)
      throw new Error(`the connections name ${connections.shardKeys.length} shards, not ${options.shards}.`);
    // Each shard's store listens for its own events channel on the one subscriber connection.
    connections.subscriber().setMaxListeners(options.shards + 10);
    const stores: RedisStore[] = [];
    try {
      for (const keys of connections.shardKeys)
        stores.push(await RedisStore.connect({ ...options, connections, keys }));
    } catch (error) {
      await Promise.all(stores.map((s) => s.close()));
      await own?.close();
      throw error;
    }
    return new ShardedStore(stores, new RunLocator(connections.command(), connections.shardKeys), own);
  }

  /**
   * A fresh id for an ask, in the shard it must live in: a parked ask in its run's shard (the claim that readies the
   * run is one step), a grouped ask in its group's (`shardOfName`), any other ask in a random shard.
   */
  async newInteractionId(placement: AskPlacement): Promise<string> {
    const n = this.shards.length;
    if (placement.runId !== null) return interactionIdInShard(await this.runs.shardOf(placement.runId));
    if (placement.groupId !== null) return interactionIdInShard(shardOfName(placement.groupId, n));
    return interactionIdInShard(randomInt(n));
  }

  /** The store of `id`'s shard; shard 0 (where it cannot exist) for an id naming no configured shard. */
  private of(id: string): RedisStore {
    return this.shards[shardOfId(id, this.shards.length) ?? 0] as RedisStore;
  }

  async create(record: StoredInteraction): Promise<void> {
    if (shardOfId(record.id, this.shards.length) === null)
      throw new AskgateError(
        'conflict',
        `interaction id ${record.id} names no shard of this store; ids must be minted by it.`,
      );
    await this.of(record.id).create(record);
  }

  get(id: string): Promise<StoredInteraction | null> {
    return this.of(id).get(id);
  }

  resolve(id: string, resolution: Resolution): Promise<ResolveOutcome> {
    return this.of(id).resolve(id, resolution);
  }

  claimAnswer(id: string, resolution: Resolution, facts: AnswerFacts): Promise<AnswerClaimOutcome> {
    return this.of(id).claimAnswer(id, resolution, facts);
  }

  setDelivery(id: string, delivery: Record<string, string>, surface?: SurfaceTarget): Promise<void> {
    return this.of(id).setDelivery(id, delivery, surface);
  }

  addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome> {
    return this.of(id).addSurface(id, surface);
  }

  castVote(id: string, vote: Vote, resolution: Resolution): Promise<VoteOutcome> {
    return this.of(id).castVote(id, vote, resolution);
  }

  async pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]> {
    const found = (await Promise.all(this.shards.map((s) => s.pendingFor(channel, recipients)))).flat();
    // Oldest first across shards, as each shard lists its own.
    return found.sort((a, b) => compareAge(a, b));
  }

  recordReceipt(id: string, ref: string, receipt: DeliveryReceipt): Promise<ReceiptOutcome> {
    return this.of(id).recordReceipt(id, ref, receipt);
  }

  async findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null> {
    return firstFound(await Promise.all(this.shards.map((s) => s.findByDelivery(channel, ref))));
  }

  appendEvent(id: string, event: NewAuditEvent): Promise<boolean> {
    return this.of(id).appendEvent(id, event);
  }

  events(id: string): Promise<AuditEvent[] | null> {
    return this.of(id).events(id);
  }

  /**
   * Every shard's pending list (or a group's, which may span shards: a run's grouped asks live in the run's shard)
   * merged oldest first. The cursor holds one position per shard — the last sequence number shown from it,
   * `<s0>.<s1>.…` — so each shard keeps its own guarantee (nothing skipped or shown twice while others are added and
   * resolved between pages), and the merge only ever takes a prefix of each shard's page. A plain number (a cursor
   * from before shards) is shard 0's position. A page reads up to `limit` rows from every shard.
   */
  async listPending(query: PendingQuery): Promise<PendingPage> {
    const after = parseShardCursor(query.cursor, this.shards.length);
    const pages: PendingRows[] = await Promise.all(
      this.shards.map((s, k) => s.pendingRows(after[k] as number, query.limit, query.groupId)),
    );
    const heads = pages.map(() => 0);
    const positions = [...after];
    const items: StoredInteraction[] = [];
    while (items.length < query.limit) {
      let pick = -1;
      pages.forEach((page, k) => {
        const row = page.rows[heads[k] as number];
        if (row === undefined) return;
        const best = pick === -1 ? undefined : (pages[pick] as PendingRows).rows[heads[pick] as number];
        if (best === undefined || compareAge(row.record, best.record) < 0) pick = k;
      });
      if (pick === -1) break;
      const row = (pages[pick] as PendingRows).rows[heads[pick] as number] as {
        record: StoredInteraction;
        seq: number;
      };
      items.push(row.record);
      positions[pick] = row.seq;
      heads[pick] = (heads[pick] as number) + 1;
    }
    let more = false;
    pages.forEach((page, k) => {
      if ((heads[k] as number) < page.rows.length) more = true;
      else if (page.next !== null) {
        // Every row of this shard's page was taken: resume after what the page walked past (vanished entries too).
        more = true;
        positions[k] = Math.max(positions[k] as number, page.next);
      }
    });
    return { items, nextCursor: more ? positions.join('.') : null };
  }

  /**
   * Every shard's due ids, up to `max` in all, earliest deadline first across shards (as one store pops them). Each
   * shard's earliest deadline is known from its index; the shard with the earliest pops what is due up to the next
   * shard's earliest (its pop's bound), then the heads are compared again. Each id still goes to one caller: every
   * pop is the shard's own atomic step.
   */
  async popDue(nowMs: number, max: number): Promise<string[]> {
    const heads = await Promise.all(this.shards.map((s) => s.earliestDeadline()));
    const due: string[] = [];
    // Each turn pops at least one id, or finds a shard's head moved by a concurrent caller: bounded either way.
    for (let turn = 0; due.length < max && turn < max + 2 * this.shards.length; turn++) {
      let first = -1;
      let next = Number.POSITIVE_INFINITY;
      heads.forEach((head, k) => {
        if (head === null) return;
        if (first === -1 || head < (heads[first] as number)) {
          if (first !== -1) next = Math.min(next, heads[first] as number);
          first = k;
        } else next = Math.min(next, head);
      });
      if (first === -1 || (heads[first] as number) > nowMs) break;
      const shard = this.shards[first] as RedisStore;
      due.push(...(await shard.popDue(Math.min(nowMs, next), max - due.length)));
      heads[first] = await shard.earliestDeadline();
    }
    return due;
  }

  subscribe(listener: (event: InteractionEvent) => void): () => void {
    const unsubscribes = this.shards.map((s) => s.subscribe(listener));
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  async eventsReady(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.eventsReady()));
  }

  hitWindow(key: string, windowSeconds: number): Promise<FixedWindowHit> {
    return this.home.hitWindow(key, windowSeconds);
  }

  appendPreset(name: string, entry: Omit<PresetVersion, 'version'>): Promise<number> {
    return this.home.appendPreset(name, entry);
  }

  presetVersions(name: string): Promise<PresetVersion[]> {
    return this.home.presetVersions(name);
  }

  markSeen(key: string, ttlMs: number): Promise<boolean> {
    return this.home.markSeen(key, ttlMs);
  }

  unmarkSeen(key: string): Promise<void> {
    return this.home.unmarkSeen(key);
  }

  ping(): Promise<void> {
    return this.home.ping();
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close()));
    await this.ownConnections?.close();
  }

  /** Shard 0: deployment-wide state, and the shard every store written before shards is. */
  private get home(): RedisStore {
    return this.shards[0] as RedisStore;
  }
}

/** Older first by creation time; equal times by id, so the order is total and the same in every process. */
function compareAge(a: StoredInteraction, b: StoredInteraction): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function firstFound(found: Array<StoredInteraction | null>): StoredInteraction | null {
  return found.find((r) => r !== null) ?? null;
}

/**
 * A sharded pending cursor: one last-shown sequence number per shard, `<s0>.<s1>.…`; missing trailing positions are
 * 0 (a cursor from before the deployment grew), and a plain number is shard 0's (a cursor from one shard).
 */
export function parseShardCursor(cursor: string | null, shards: number): number[] {
  const positions = Array.from({ length: shards }, () => 0);
  if (cursor === null) return positions;
  const parts = cursor.split('.');
  if (parts.length > shards || parts.some((p) => !/^\d{1,15}$/.test(p)))
    throw invalid('cursor', 'cursor must be the next_cursor of a previous page.');
  parts.forEach((p, k) => {
    positions[k] = Number(p);
  });
  return positions;
}
