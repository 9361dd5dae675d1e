import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEvent, canonicalJson, verifyChain } from '../../src/core/audit.js';
import type { Store } from '../../src/store/store.js';
import type { MakeStore, StoreHandle } from './contract.js';
import { answer, makeInteraction } from './fixtures.js';

/** The hash rule written out here on its own, so a store that hashes something else fails. */
function expectedHash(previous: string, event: AuditEvent): string {
  const { hash: _hash, ...content } = event;
  return createHash('sha256')
    .update(previous + canonicalJson(content))
    .digest('hex');
}

/** Checks seqs 1..n and every hash by the rule above; returns the types in order. */
function checkedTypes(items: AuditEvent[]): string[] {
  let previous = '';
  items.forEach((item, i) => {
    expect(item.seq).toBe(i + 1);
    expect(item.hash).toBe(expectedHash(previous, item));
    previous = item.hash;
  });
  expect(verifyChain(items)).toEqual({ ok: true, count: items.length });
  return items.map((item) => item.type);
}

/** The audit trail part of the store contract: both stores pass it. */
export function runAuditContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: audit trail contract`, () => {
    let handle: StoreHandle;
    let store: Store;

    beforeEach(async () => {
      handle = await makeStore({ idleTtlSeconds: 60 });
      store = handle.store;
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    it('starts every question with a created event derived from the ask, and none for an unknown id', async () => {
      const record = makeInteraction({ question: 'Deploy v2?', asked_by: 'ci-bot' });
      await store.create(record);
      const items = (await store.events(record.id)) as AuditEvent[];
      expect(checkedTypes(items)).toEqual(['created']);
      expect(items[0]).toEqual({
        seq: 1,
        at: record.created_at,
        type: 'created',
        by: 'ci-bot',
        detail: { question: 'Deploy v2?', answer_format: 'text', mode: 'sync', deadline_at: record.deadline_at },
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(await store.events('int_missing')).toBeNull();
      expect(await store.appendEvent('int_missing', { type: 'reminded' })).toBe(false);
    });

    it('appends answered in the claim itself, naming who answered, where and what', async () => {
      const record = makeInteraction();
      await store.create(record);
      const outcome = await store.resolve(record.id, {
        status: 'answered',
        result: answer('yes', 'ada'),
        resolvedAt: new Date().toISOString(),
      });
      expect(outcome.kind).toBe('resolved');
      const items = (await store.events(record.id)) as AuditEvent[];
      expect(checkedTypes(items)).toEqual(['created', 'answered']);
      expect(items[1]).toMatchObject({
        seq: 2,
        type: 'answered',
        by: 'ada',
        surface: 'inbox',
        detail: { answer: 'yes' },
      });
      // The losing claim adds nothing.
      await store.resolve(record.id, { status: 'cancelled', result: null, resolvedAt: new Date().toISOString() });
      expect(checkedTypes((await store.events(record.id)) as AuditEvent[])).toEqual(['created', 'answered']);
    });

    it('appends expired and cancelled with their resolutions', async () => {
      const expired = makeInteraction({ on_expiry: 'resume' });
      const cancelled = makeInteraction();
      await store.create(expired);
      await store.create(cancelled);
      const at = new Date().toISOString();
      await store.resolve(expired.id, { status: 'expired', result: null, resolvedAt: at });
      await store.resolve(cancelled.id, { status: 'cancelled', result: null, resolvedAt: at });
      expect(checkedTypes((await store.events(expired.id)) as AuditEvent[])).toEqual(['created', 'expired']);
      expect(checkedTypes((await store.events(cancelled.id)) as AuditEvent[])).toEqual(['created', 'cancelled']);
    });

    it('appends delivered with setDelivery and delivery_failed with a failing receipt, on the channel', async () => {
      const record = makeInteraction({ channel: 'whatsapp', recipient: '15550009' });
      await store.create(record);
      await store.setDelivery(record.id, { message_id: 'wamid.9', ref: 'wamid.9' });
      const failure = { code: '131047', message: 'Re-engagement message' };
      await store.recordReceipt(record.id, 'wamid.9', { status: 'failed', rank: 4, state: 'failed', error: failure });
      // A receipt that changes nothing appends nothing.
      await store.recordReceipt(record.id, 'wamid.9', { status: 'read', rank: 3, state: 'read' });
      const items = (await store.events(record.id)) as AuditEvent[];
      expect(checkedTypes(items)).toEqual(['created', 'delivered', 'delivery_failed']);
      expect(items[0]?.detail).toMatchObject({ channel: 'whatsapp', recipient: '15550009' });
      expect(items[1]).toMatchObject({ type: 'delivered', surface: 'whatsapp', detail: { ref: 'wamid.9' } });
      expect(items[2]).toMatchObject({
        type: 'delivery_failed',
        surface: 'whatsapp',
        detail: { status: 'failed', code: '131047', message: 'Re-engagement message' },
      });
    });

    it('appends a standalone event with its members, and keeps sealed hashes as later events arrive', async () => {
      const record = makeInteraction();
      await store.create(record);
      const at = Date.parse('2026-01-02T03:04:05.678Z');
      const event = { type: 'reminded', atMs: at, surface: 'slack', by: 'askgate', detail: { n: 1 } } as const;
      expect(await store.appendEvent(record.id, event)).toBe(true);
      const first = (await store.events(record.id)) as AuditEvent[];
      expect(first[1]).toMatchObject({
        seq: 2,
        at: '2026-01-02T03:04:05.678Z',
        type: 'reminded',
        surface: 'slack',
        by: 'askgate',
        detail: { n: 1 },
      });
      expect(await store.appendEvent(record.id, { type: 'escalated' })).toBe(true);
      const second = (await store.events(record.id)) as AuditEvent[];
      expect(checkedTypes(second)).toEqual(['created', 'reminded', 'escalated']);
      expect(second.slice(0, 2)).toEqual(first);
      expect(second[2]).not.toHaveProperty('surface');
      // Reading again changes nothing: the seal is stored, not recomputed.
      expect(await store.events(record.id)).toEqual(second);
    });

    it('keeps one gap-free chain under concurrent appends and a racing claim', async () => {
      const record = makeInteraction();
      await store.create(record);
      const at = new Date().toISOString();
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i < 30; i++) {
        writes.push(store.appendEvent(record.id, { type: 'vote', by: `voter-${i}`, detail: { i } }));
        if (i % 10 === 5) {
          writes.push(store.resolve(record.id, { status: 'answered', result: answer(i, `a${i}`), resolvedAt: at }));
          writes.push(store.events(record.id));
        }
      }
      await Promise.all(writes);
      const items = (await store.events(record.id)) as AuditEvent[];
      const types = checkedTypes(items);
      expect(types).toHaveLength(32);
      expect(types.filter((t) => t === 'answered')).toHaveLength(1);
      expect(new Set(items.filter((e) => e.type === 'vote').map((e) => e.by)).size).toBe(30);
    });
  });
}
