import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Resolution, Store } from '../../src/store/store.js';
import type { MakeStore, StoreHandle } from './contract.js';
import { answer, eventually, makeInteraction } from './fixtures.js';

/**
 * The store contract of questions on several surfaces and of quorum votes, passed by both stores: every surface's
 * recipient indexed and its message found, receipts on any surface, a surface added later, and votes counted and
 * resolved in one step however many arrive at once.
 */
export function runSurfacesContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: surfaces and votes contract`, () => {
    let handle: StoreHandle;
    let store: Store;

    beforeEach(async () => {
      handle = await makeStore({ idleTtlSeconds: 60 });
      store = handle.store;
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    const twoSurfaces = () =>
      makeInteraction({
        channel: 'slack',
        recipient: 'C1',
        extra_surfaces: [{ channel: 'telegram', recipient: '42', delivery: null }],
      });

    it("answer, expiry and cancel each remove every surface's recipient entry and delivery lookup in the claim", async () => {
      const statuses = ['answered', 'expired', 'cancelled'] as const;
      const records = statuses.map((status) =>
        makeInteraction({
          channel: 'slack',
          recipient: `C-${status}`,
          extra_surfaces: [{ channel: 'telegram', recipient: `t-${status}`, delivery: null }],
        }),
      );
      for (const record of records) {
        await store.create(record);
        await store.setDelivery(record.id, { channel: `C-${record.id}`, ts: '1.5', ref: `C-${record.id}:1.5` });
        await store.setDelivery(
          record.id,
          { chat_id: `t-${record.id}`, message_id: '9', ref: `t-${record.id}:9` },
          { channel: 'telegram', recipient: (record.extra_surfaces?.[0]?.recipient ?? '') as string },
        );
      }
      expect(await handle.recipientIndexes()).toHaveLength(6);
      expect(await handle.deliveryLookups()).toHaveLength(6);
      for (const [i, status] of statuses.entries()) {
        const record = records[i] as (typeof records)[number];
        const result = status === 'answered' ? answer(true) : null;
        await store.resolve(record.id, { status, result, resolvedAt: new Date().toISOString() });
        // Gone at once, not at some later expiry: the claim removed them.
        expect(await handle.recipientIndexes()).not.toContain(`slack:C-${status}`);
        expect(await handle.recipientIndexes()).not.toContain(`telegram:t-${status}`);
        expect(await store.pendingFor('telegram', [`t-${status}`])).toEqual([]);
        // While it still reads (its idle TTL), a resolved question's messages lead to it: a reply is told so.
        expect((await store.findByDelivery('slack', `C-${record.id}:1.5`))?.status).toBe(status);
        expect((await store.findByDelivery('telegram', `t-${record.id}:9`))?.status).toBe(status);
      }
      expect(await handle.recipientIndexes()).toEqual([]);
    });

    it('a re-sent message replaces the old one in the delivery lookup; a receipt and a quoted reply find the new one', async () => {
      const record = makeInteraction({ channel: 'whatsapp', recipient: '15550009' });
      await store.create(record);
      await store.setDelivery(record.id, { wa_id: '15550009', message_id: 'wamid.A', ref: 'wamid.A' });
      await store.setDelivery(record.id, { wa_id: '15550009', message_id: 'wamid.B', ref: 'wamid.B', via: 'template' });
      expect(await handle.deliveryLookups()).toEqual(['whatsapp:wamid.B']);
      expect(await store.findByDelivery('whatsapp', 'wamid.A')).toBeNull();
      expect((await store.findByDelivery('whatsapp', 'wamid.B'))?.id).toBe(record.id);
      const read = { status: 'read', rank: 3, state: 'read' as const };
      expect(await store.recordReceipt(record.id, 'wamid.B', read)).toBe('moved');
      expect((await store.get(record.id))?.delivery).toEqual({
        wa_id: '15550009',
        message_id: 'wamid.B',
        ref: 'wamid.B',
        via: 'template',
        status: 'read',
        status_rank: '3',
        receipt: 'read',
      });
    });

    it('a question that outlived its record unresolved leaves entries the next read drops', async () => {
      const short = await makeStore({ idleTtlSeconds: 1 });
      try {
        const forgotten = makeInteraction({
          channel: 'telegram',
          recipient: 'life-2',
          deadline_at: new Date(Date.now() + 500).toISOString(),
          extra_surfaces: [{ channel: 'whatsapp', recipient: 'life-3', delivery: null }],
        });
        await short.store.create(forgotten);
        await short.store.setDelivery(forgotten.id, { chat_id: 'life-2', message_id: '1', ref: 'life-2:1' });
        // Nobody resolves it (no expiry sweep here): its record goes at deadline + idle TTL.
        await eventually(async () => expect(await short.store.get(forgotten.id)).toBeNull(), 20_000);
        expect(await short.store.pendingFor('telegram', ['life-2'])).toEqual([]);
        expect(await short.store.pendingFor('whatsapp', ['life-3'])).toEqual([]);
        expect(await short.store.findByDelivery('telegram', 'life-2:1')).toBeNull();
        expect(await short.recipientIndexes()).toEqual([]);
        expect(await short.deliveryLookups()).toEqual([]);
      } finally {
        await short.cleanup();
      }
    });

    it('indexes every surface at create; a lookup returns the view of the surface it matched', async () => {
      const record = twoSurfaces();
      await store.create(record);
      const [onTelegram] = await store.pendingFor('telegram', ['42']);
      expect(onTelegram).toMatchObject({ id: record.id, channel: 'telegram', recipient: '42' });
      const [onSlack] = await store.pendingFor('slack', ['C1']);
      expect(onSlack).toMatchObject({ id: record.id, channel: 'slack', recipient: 'C1' });
      expect(await store.pendingFor('telegram', ['C1'])).toEqual([]);

      await store.setDelivery(
        record.id,
        { chat_id: '42', message_id: '7', ref: '42:7' },
        { channel: 'telegram', recipient: '42' },
      );
      await store.setDelivery(record.id, { channel: 'C1', ts: '1.2', ref: 'C1:1.2' });
      const stored = await store.get(record.id);
      expect(stored?.delivery).toEqual({ channel: 'C1', ts: '1.2', ref: 'C1:1.2' });
      expect(stored?.extra_surfaces).toEqual([
        { channel: 'telegram', recipient: '42', delivery: { chat_id: '42', message_id: '7', ref: '42:7' } },
      ]);
      const found = await store.findByDelivery('telegram', '42:7');
      expect(found).toMatchObject({ id: record.id, channel: 'telegram', delivery: { message_id: '7' } });
      expect((await store.findByDelivery('slack', 'C1:1.2'))?.channel).toBe('slack');
      expect(await store.findByDelivery('slack', '42:7')).toBeNull();
    });

    it('applies a receipt to the surface whose message it names, and fails only that delivery', async () => {
      const record = twoSurfaces();
      await store.create(record);
      await store.setDelivery(record.id, { ref: 'C1:1' });
      await store.setDelivery(record.id, { ref: 'T:1' }, { channel: 'telegram', recipient: '42' });
      const failed = {
        status: 'failed',
        state: 'failed' as const,
        rank: 9,
        error: { code: '403', message: 'blocked' },
      };
      expect(await store.recordReceipt(record.id, 'T:1', failed)).toBe('failed');
      const stored = await store.get(record.id);
      expect(stored?.extra_surfaces?.[0]?.delivery).toMatchObject({ receipt: 'failed', error_code: '403' });
      expect(stored?.delivery).toEqual({ ref: 'C1:1' });
      expect(await store.recordReceipt(record.id, 'nope', failed)).toBe('unknown');
    });

    it('adds a surface to a pending question once, indexed at once; never to a resolved one', async () => {
      const record = makeInteraction({ channel: 'slack', recipient: 'C1' });
      await store.create(record);
      const target = { channel: 'telegram', recipient: '99' };
      expect(await store.addSurface(record.id, target)).toBe('added');
      expect(await store.addSurface(record.id, target)).toBe('duplicate');
      expect(await store.addSurface(record.id, { channel: 'slack', recipient: 'C1' })).toBe('duplicate');
      expect((await store.pendingFor('telegram', ['99']))[0]?.id).toBe(record.id);
      await store.setDelivery(record.id, { ref: 'T:9' }, target);
      expect((await store.findByDelivery('telegram', 'T:9'))?.id).toBe(record.id);
      await store.resolve(record.id, { status: 'cancelled', result: null, resolvedAt: new Date().toISOString() });
      expect(await store.addSurface(record.id, { channel: 'telegram', recipient: '100' })).toBe('not_pending');
      expect(await store.addSurface('int_missing', target)).toBe('not_found');
      expect(await store.pendingFor('telegram', ['99'])).toEqual([]);
    });

    const quorumQuestion = (approve: number, reject: number, approvers: string[]) =>
      makeInteraction({ answer_format: 'confirm', approvers, quorum: { approve, reject } });
    const voteOf = (by: string, yes: boolean) => ({ by, answer: yes, surface: 'inbox', at: new Date().toISOString() });
    const resolutionOf = (by: string, yes: boolean): Resolution => ({
      status: 'answered',
      result: answer(yes, by),
      resolvedAt: new Date().toISOString(),
    });

    it('counts each approver once and resolves at the quorum; a vote after that changes nothing', async () => {
      const record = quorumQuestion(2, 2, ['a', 'b', 'c']);
      await store.create(record);
      expect((await store.castVote(record.id, voteOf('a', true), resolutionOf('a', true))).kind).toBe('voted');
      const again = await store.castVote(record.id, voteOf('a', true), resolutionOf('a', true));
      expect(again.kind).toBe('already_voted');
      expect((await store.get(record.id))?.votes?.map((v) => v.by)).toEqual(['a']);
      const deciding = await store.castVote(record.id, voteOf('b', true), resolutionOf('b', true));
      expect(deciding.kind).toBe('resolved');
      const after = await store.castVote(record.id, voteOf('c', false), resolutionOf('c', false));
      expect(after.kind).toBe('not_pending');
      const stored = await store.get(record.id);
      expect(stored?.status).toBe('answered');
      expect(stored?.result).toMatchObject({ answer: true, answered_by: 'b' });
      expect(stored?.votes?.map((v) => [v.by, v.answer])).toEqual([
        ['a', true],
        ['b', true],
      ]);
    });

    /** 50 votes at once: each of 10 approvers 5 times, the first `yesVoters` of them voting yes; the record after. */
    async function storm(approve: number, reject: number, yesVoters: number) {
      const approvers = Array.from({ length: 10 }, (_, i) => `approver-${i}`);
      const record = quorumQuestion(approve, reject, approvers);
      await store.create(record);
      const casts = approvers.flatMap((by, i) =>
        Array.from({ length: 5 }, () =>
          store.castVote(record.id, voteOf(by, i < yesVoters), resolutionOf(by, i < yesVoters)),
        ),
      );
      const outcomes = await Promise.all(casts);
      const stored = await store.get(record.id);
      const votes = stored?.votes ?? [];
      // Exactly one claim resolved it; no approver counted twice; every counted vote but the deciding one is `voted`.
      expect(outcomes.filter((o) => o.kind === 'resolved')).toHaveLength(1);
      expect(new Set(votes.map((v) => v.by)).size).toBe(votes.length);
      expect(outcomes.filter((o) => o.kind === 'voted')).toHaveLength(votes.length - 1);
      expect(stored?.status).toBe('answered');
      return { result: stored?.result ?? null, votes };
    }

    it('50 concurrent votes from 10 approvers: 6 yes against a quorum of 4 yes / 7 no resolve true', async () => {
      const { result, votes } = await storm(4, 7, 6);
      expect(result?.answer).toBe(true);
      expect(votes.filter((v) => v.answer)).toHaveLength(4);
    });

    it('50 concurrent votes from 10 approvers: 5 no against a quorum of 6 yes / 3 no resolve false', async () => {
      const { result, votes } = await storm(6, 3, 5);
      expect(result?.answer).toBe(false);
      expect(votes.filter((v) => !v.answer)).toHaveLength(3);
    });
  });
}
