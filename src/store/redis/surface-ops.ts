import { AskgateError } from '../../core/errors.js';
import { isFirstSurface, viewOn } from '../../core/surfaces.js';
import type { DeliveryReceipt, ReceiptOutcome, StoredInteraction, SurfaceTarget } from '../../core/types.js';
import { failureDetail } from '../audit-trail.js';
import type { Keys } from '../keys.js';
import { timeMs } from '../record-codec.js';
import type { AddSurfaceOutcome } from '../store.js';
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
        JSON.stringify(delivery),
        Date.now(),
        detail,
        // The script decides first surface or further one; '' names the first.
        further === null ? '' : further.channel,
        further?.recipient ?? '',
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
    const ref = delivery['ref'];
    if (ref === undefined) return;
    // The reverse index is a plain SET: it is written once, after the message exists, and only ever read, so it
    // needs no script. It lives as long as the pending record could (deadline + idle TTL).
    const record = await this.ctx.get(id);
    const channel = further?.channel ?? record?.channel ?? null;
    if (record === null || channel === null) return;
    const ttlMs = Math.max(timeMs(record.deadline_at, 'deadline_at') - Date.now(), 0) + this.ctx.idleTtlMs;
    await run(() => client.set(keys.delivery(channel, ref), id, 'PX', ttlMs));
  }

  async addSurface(id: string, surface: SurfaceTarget): Promise<AddSurfaceOutcome> {
    const { client, keys, run } = this.ctx;
    const recordKey = keys.interaction(id);
    const code = await run(() =>
      client.askgateAddSurface(
        recordKey,
        surface.recipient === null ? recordKey : keys.recipient(surface.channel, surface.recipient),
        keys.seq,
        surface.channel,
        surface.recipient ?? '',
        surface.recipient === null ? '' : '1',
        Date.now(),
        id,
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
      const key = keys.recipient(channel, recipient);
      const rows = await run(() => client.zrange(key, 0, -1, 'WITHSCORES'));
      const ids = rows.filter((_, i) => i % 2 === 0);
      // One round trip for all of them: the command connection pipelines the reads of one tick.
      const records = await Promise.all(ids.map((id) => this.ctx.get(id)));
      const stale: string[] = [];
      records.forEach((record, i) => {
        if (record === null || record.status !== 'pending') {
          stale.push(ids[i] as string);
          return;
        }
        // The view of the surface this person was asked on, whichever of the question's surfaces it is.
        const view = viewOn(record, channel, (s) => s.recipient !== null && wanted.has(s.recipient));
        if (view !== null && !found.has(record.id))
          found.set(record.id, { seq: Number(rows[2 * i + 1]), record: view });
      });
      // Resolved questions leave the index here, on its next read, rather than in every claim's script.
      if (stale.length > 0) await run(() => client.zrem(key, ...stale));
    }
    return [...found.values()].sort((a, b) => a.seq - b.seq).map((f) => f.record);
  }

  async findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null> {
    const id = await this.ctx.run(() => this.ctx.client.get(this.ctx.keys.delivery(channel, ref)));
    if (id === null) return null;
    const record = await this.ctx.get(id);
    return record === null ? null : viewOn(record, channel, (s) => s.delivery?.['ref'] === ref);
  }
}
