import { AskgateError } from '../../core/errors.js';
import { isFirstSurface, viewOn } from '../../core/surfaces.js';
import type { DeliveryReceipt, ReceiptOutcome, StoredInteraction, SurfaceTarget } from '../../core/types.js';
import { failureDetail } from '../audit-trail.js';
import type { Keys } from '../keys.js';
import { compactDelivery } from '../delivery-refs.js';
import type { AddSurfaceOutcome } from '../store.js';
import { deliveryEntry, recentWindows, recipientBucketsOf, recipientOfRef } from './lookups.js';
import type { ScriptClient } from './scripts/index.js';

/** What the surface operations need from the RedisStore they serve. */
export interface SurfaceOpsContext {
  client: ScriptClient;
  keys: Keys;
  idleTtlMs: number;
  /** Runs a Redis call, turning failures into `store_unavailable`. */
  run<T>(call: () => Promise<T>): Promise<T>;
  get(id: string): Promise<StoredInteraction | null>;
}

/**
 * The RedisStore's per-surface operations (split out by purpose: the store's file holds the record's life): a
 * question's message references per surface, receipts, the lookups by delivered message and by recipient (each
 * returning the view of the matched surface, core/surfaces.ts), and adding a surface to a pending question.
 */
export class RedisSurfaceOps {
  constructor(private readonly ctx: SurfaceOpsContext) {}

  async setDelivery(id: string, delivery: Record<string, string>, surface?: SurfaceTarget): Promise<void> {
    const { client, keys, run } = this.ctx;
    const further = surface !== undefined ? surface : null;
    const detail = delivery['ref'] === undefined ? 'null' : JSON.stringify({ ref: delivery['ref'] });
    const code = await run(() =>
      client.askgateSetDelivery(
        keys.interaction(id),
        JSON.stringify(compactDelivery(delivery)),
        Date.now(),
        detail,
        // The script decides first surface or further one; '' names the first.
        further === null ? '' : further.channel,
        further?.recipient ?? '',
        // The delivery lookup's field (<channel>:<ref> → id) is written in the same step (redis/lookups.ts).
        keys.deliveryBucketPrefix,
        id,
      ),
    );
    if (code === -1) throw new AskgateError('not_found', `interaction ${id} does not exist (or was pruned).`);
    if (code === -2 && further !== null) {
      // Not a further surface: it may be the first one, named explicitly.
      const record = await this.ctx.get(id);
      if (record === null || !isFirstSurface(record, further))
        throw new AskgateError(
          'not_found',
          `interaction ${id} has no surface ${further.channel}:${further.recipient}.`,
        );
      return this.setDelivery(id, delivery);
    }
  }

  async addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome> {
    const { client, keys, run } = this.ctx;
    const recordKey = keys.interaction(id);
    const code = await run(() =>
      client.askgateAddSurface(
        recordKey,
        keys.pending,
        keys.seq,
        surface.channel,
        surface.recipient ?? '',
        surface.recipient === null ? '' : '1',
        Date.now(),
        id,
        keys.recipientBucketPrefix,
      ),
    );
    return code === 1 ? 'added' : code === 2 ? 'duplicate' : code === 0 ? 'not_pending' : 'not_found';
  }

  async recordReceipt(id: string, ref: string, receipt: DeliveryReceipt): Promise<ReceiptOutcome> {
    const { client, keys, run } = this.ctx;
    const code = await run(() =>
      client.askgateDeliveryReceipt(
        keys.interaction(id),
        ref,
        receipt.status,
        receipt.rank,
        receipt.state,
        receipt.at ?? '',
        receipt.error?.code ?? '',
        receipt.error?.message ?? '',
        keys.events,
        keys.schemaPrefix,
        id,
        Date.now(),
        JSON.stringify(failureDetail(receipt)),
      ),
    );
    return code === 2 ? 'failed' : code === 1 ? 'moved' : code === 0 ? 'unchanged' : 'unknown';
  }

  async pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]> {
    const { client, keys, run } = this.ctx;
    const wanted = new Set(recipients);
    const found = new Map<string, { seq: number; record: StoredInteraction }>();
    for (const recipient of wanted) {
      const buckets = recipientBucketsOf(keys, channel, recipient);
      // Each level's hash holds other recipients' entries too; this recipient's start with its prefix.
      const levels = await Promise.all(buckets.keys.map((key) => run(() => client.hgetall(key))));
      const entries: Array<{ id: string; seq: number; key: string; field: string }> = [];
      levels.forEach((fields, level) => {
        for (const [field, seq] of Object.entries(fields)) {
          if (!field.startsWith(buckets.prefix)) continue;
          const id = field.slice(buckets.prefix.length);
          if (id !== '' && !id.includes(':'))
            entries.push({ id, seq: Number(seq), key: buckets.keys[level] as string, field });
        }
      });
      // One round trip for all of them: the command connection pipelines the reads of one tick.
      const records = await Promise.all(entries.map((e) => this.ctx.get(e.id)));
      const stale: Array<{ key: string; field: string }> = [];
      records.forEach((record, i) => {
        const entry = entries[i] as (typeof entries)[number];
        if (record === null || record.status !== 'pending') {
          stale.push({ key: entry.key, field: entry.field });
          return;
        }
        // The view of the surface this person was asked on, whichever of the question's surfaces it is.
        const view = viewOn(record, channel, (s) => s.recipient !== null && wanted.has(s.recipient));
        if (view !== null && !found.has(record.id)) found.set(record.id, { seq: entry.seq, record: view });
      });
      // Resolve removes its entries; what is left here is a question that outlived its record (the TTL safety net),
      // dropped on this read.
      await Promise.all(stale.map(({ key, field }) => run(() => client.hdel(key, field))));
    }
    return [...found.values()].sort((a, b) => a.seq - b.seq).map((f) => f.record);
  }

  async findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null> {
    const { client, keys, run } = this.ctx;
    const entry = deliveryEntry(keys, channel, ref);
    const id = await run(() => client.hget(entry.key, entry.field));
    if (id === null) return (await this.findByRecipientRef(channel, ref)) ?? this.findRecentlyResolved(channel, ref);
    const record = await this.ctx.get(id);
    if (record === null) {
      await run(() => client.hdel(entry.key, entry.field));
      return null;
    }
    return viewOn(record, channel, (s) => s.delivery?.['ref'] === ref);
  }

  /** A question resolved within its idle TTL whose delivered message has `ref` (the `rr:` windows, redis/lookups.ts). */
  private async findRecentlyResolved(channel: string, ref: string): Promise<StoredInteraction | null> {
    const { client, keys, run, idleTtlMs } = this.ctx;
    const field = `${channel}:${ref}`;
    for (const key of recentWindows(keys, Date.now(), idleTtlMs)) {
      const id = await run(() => client.hget(key, field));
      if (id === null) continue;
      const record = await this.ctx.get(id);
      return record === null ? null : viewOn(record, channel, (s) => s.delivery?.['ref'] === ref);
    }
    return null;
  }

  /**
   * A ref of the form `<recipient>:<message>` has no delivery lookup field (redis/lookups.ts): its question is one
   * of that recipient's pending questions, the one whose delivery on this channel has the ref.
   */
  private async findByRecipientRef(channel: string, ref: string): Promise<StoredInteraction | null> {
    const recipient = recipientOfRef(ref);
    if (recipient === null) return null;
    for (const record of await this.pendingFor(channel, [recipient])) {
      const view = viewOn(record, channel, (s) => s.delivery?.['ref'] === ref);
      if (view !== null) return view;
    }
    return null;
  }
}
