import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EXPIRED_MARKER,
  type DeliveryState,
  type InteractionEvent,
  type StoredInteraction,
} from '../../src/core/types.js';
import { toPublicRecord } from '../../src/store/record-codec.js';
import type { Store, StoreOptions } from '../../src/store/store.js';
import { hashTicketSecret, newTicketSecret } from '../../src/core/ids.js';
import { answer, eventually, makeInteraction, sleep, ticketHash } from './fixtures.js';

export { answer, eventually, makeInteraction, sleep, ticketHash };

/** A store under test and how to dispose of it (close it, delete what it wrote). */
export interface StoreHandle {
  store: Store;
  cleanup(): Promise<void>;
  /**
   * The recipient indexes the store still holds, as `<channel>:<recipient>` (Redis: the recipients of its `rb:`
   * bucket fields and `rc:` keys; memory: its index map), so a test can see that an index does not outlive its
   * questions.
   */
  recipientIndexes(): Promise<string[]>;
  /** The delivery lookup entries the store still holds, as `<channel>:<ref>` (Redis: `db:` fields and `dl:` keys). */
  deliveryLookups(): Promise<string[]>;
}

export type MakeStore = (options: StoreOptions) => Promise<StoreHandle>;

const FORM_SCHEMA = {
  type: 'object',
  required: [],
  properties: {
    name: { type: 'string', minLength: 1, errorMessages: { required: 'Name, please' } },
    tags: { type: 'array', items: { type: 'string', enum: [] } },
    nested: { type: 'object', properties: {}, additionalProperties: false },
  },
};

/**
 * The public record (docs/doors.md's interaction record) of a `makeInteraction` fixture with `changed` fields,
 * written out field by field: what an event carries. The store-only members (ticket_hash, verifier_binding,
 * delivery, extra_surfaces, callback_url) are not among them; an undelivered question has no `deliveries`.
 */
function publicFixture(record: StoredInteraction, changed: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: record.id,
    status: 'pending',
    question: 'Ship it?',
    answer_format: 'text',
    choices: null,
    schema: null,
    group_id: null,
    channel: null,
    recipient: null,
    mode: 'sync',
    created_at: record.created_at,
    deadline_at: record.deadline_at,
    asked_by: 'ci-bot',
    media: null,
    link: false,
    verifier: null,
    to: 'person',
    payload: null,
    on_expiry: 'kill',
    run_id: null,
    result: null,
    resolved_at: null,
    ...changed,
  };
}

/**
 * The contract every `Store` implementation passes. `makeStore` is called once per test with the options that test
 * needs, so tests never share state.
 */
export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: store contract`, () => {
    let handle: StoreHandle;
    let store: Store;
    const extra: StoreHandle[] = [];

    beforeEach(async () => {
      handle = await makeStore({ idleTtlSeconds: 60 });
      store = handle.store;
    });
    afterEach(async () => {
      await handle.cleanup();
      for (const other of extra.splice(0)) await other.cleanup();
    });

    /** Records every event into the returned array. */
    /** Every event of `target` from now on (a store may start listening with this subscription). */
    async function collect(target: Store = store): Promise<InteractionEvent[]> {
      const events: InteractionEvent[] = [];
      target.subscribe((event) => events.push(event));
      await target.eventsReady();
      return events;
    }

    /**
     * The events `events` received once everything published before this call has arrived, without the sentinel
     * that proves it: a sentinel's create is published after them, on the same channel, and events arrive in order.
     * No wall-clock window, so a loaded host cannot hide a stray event.
     */
    async function drained(events: InteractionEvent[], target: Store = store): Promise<InteractionEvent[]> {
      const sentinel = makeInteraction();
      await target.create(sentinel);
      await eventually(() => expect(events.some((e) => e.record.id === sentinel.id)).toBe(true));
      return events.filter((e) => e.record.id !== sentinel.id);
    }

    describe('create and get', () => {
      it('returns an equal record for every shape of ask', async () => {
        const records = [
          makeInteraction({ question: 'Déployer à 18h ? 🚀 — 確認してください', answer_format: 'confirm' }),
          makeInteraction({ answer_format: 'select', choices: ['red', 'green', 'blue'], group_id: 'release-42' }),
          makeInteraction({
            answer_format: 'form',
            schema: FORM_SCHEMA,
            ticket_hash: ticketHash(),
            link: true,
            media: [
              { kind: 'image', url: 'https://example.com/a.png', caption: 'the diff' },
              { kind: 'link', url: 'http://example.com/' },
            ],
          }),
          makeInteraction({
            answer_format: 'external',
            verifier: { name: 'stripe' },
            verifier_binding: { name: 'stripe', secret_env: 'STRIPE_WHSEC', tolerance: 300 },
            ticket_hash: ticketHash(),
            channel: 'telegram',
            recipient: '12345',
            mode: 'async',
            on_expiry: 'resume',
            run_id: 'run_1',
            to: 'caller',
            payload: { amount: 1200, items: [], nested: { empty: {} } },
          }),
        ];
        for (const record of records) await store.create(record);
        for (const record of records) expect(await store.get(record.id)).toEqual(record);
      });

      it('keeps a timestamp with an offset exactly as written', async () => {
        const record = makeInteraction({
          created_at: '2030-01-01T10:00:00+02:00',
          deadline_at: '2030-01-01T10:05:00.5+02:00',
        });
        await store.create(record);
        const read = await store.get(record.id);
        expect(read?.created_at).toBe('2030-01-01T10:00:00+02:00');
        expect(read?.deadline_at).toBe('2030-01-01T10:05:00.5+02:00');
      });

      it('does not keep the callback URL (only the ticket hash)', async () => {
        const record = makeInteraction({
          ticket_hash: ticketHash(),
          callback_url: 'https://askgate.example/cb/secret',
        });
        await store.create(record);
        const read = await store.get(record.id);
        expect(read).not.toHaveProperty('callback_url');
        expect(read?.ticket_hash).toBe(record.ticket_hash);
      });

      it('returns null for an unknown id', async () => {
        expect(await store.get('int_does-not-exist')).toBeNull();
      });

      it('refuses a second create with the same id and leaves the first intact', async () => {
        const record = makeInteraction();
        await store.create(record);
        await expect(store.create({ ...record, question: 'other' })).rejects.toMatchObject({ code: 'conflict' });
        expect((await store.get(record.id))?.question).toBe('Ship it?');
      });
    });

    describe('events', () => {
      it('emits interaction.created, asynchronously, with the record', async () => {
        const events = await collect();
        const record = makeInteraction({ answer_format: 'form', schema: FORM_SCHEMA, ticket_hash: ticketHash() });
        const creating = store.create(record);
        expect(events).toHaveLength(0);
        await creating;
        await eventually(() => expect(events).toHaveLength(1));
        expect(events[0]).toEqual({
          type: 'interaction.created',
          record: publicFixture(record, { answer_format: 'form', schema: FORM_SCHEMA }),
        });
        // The store-only facts stay out of events: they reach SSE clients.
        expect(events[0]!.record).not.toHaveProperty('ticket_hash');
        expect(events[0]!.record).not.toHaveProperty('verifier_binding');
      });

      it.each([
        ['answered', answer('yes')],
        ['expired', { ...answer(EXPIRED_MARKER, 'askgate'), surface: 'inbox' as const }],
        ['cancelled', null],
      ] as const)('emits interaction.%s with the resolved record', async (status, result) => {
        const record = makeInteraction();
        const events = await collect();
        await store.create(record);
        // Wait for the created event first: on Redis it travels through pub/sub and may land after create returns.
        await eventually(() => expect(events).toHaveLength(1));
        const resolvedAt = new Date().toISOString();
        const outcome = await store.resolve(record.id, { status, result, resolvedAt });
        await eventually(() => expect(events).toHaveLength(2));
        const resolved = { ...record, status, result, resolved_at: resolvedAt };
        expect(outcome).toEqual({ kind: 'resolved', record: resolved });
        expect(events[1]).toEqual({
          type: `interaction.${status}`,
          record: publicFixture(record, { status, result, resolved_at: resolvedAt }),
        });
      });

      it('stops delivering to an unsubscribed listener', async () => {
        const kept: InteractionEvent[] = [];
        const dropped: InteractionEvent[] = [];
        store.subscribe((event) => kept.push(event));
        const unsubscribe = store.subscribe((event) => dropped.push(event));
        unsubscribe();
        await store.eventsReady();
        await store.create(makeInteraction());
        await eventually(() => expect(kept).toHaveLength(1));
        await drained(kept);
        expect(dropped).toHaveLength(0);
      });
    });

    describe('resolve', () => {
      it('is exactly-once under 50 concurrent calls', async () => {
        const record = makeInteraction();
        const events = await collect();
        await store.create(record);
        await eventually(() => expect(events).toHaveLength(1));
        const resolvedAt = new Date().toISOString();
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.resolve(record.id, { status: 'answered', result: answer(`answer ${i}`), resolvedAt }),
          ),
        );
        const winners = outcomes.filter((o) => o.kind === 'resolved');
        expect(winners).toHaveLength(1);
        expect(outcomes.filter((o) => o.kind === 'not_pending')).toHaveLength(49);
        const winner = winners[0]!;
        if (winner.kind !== 'resolved') throw new Error('unreachable');
        const stored = await store.get(record.id);
        expect(stored?.result).toEqual(winner.record.result);
        for (const outcome of outcomes) {
          if (outcome.kind === 'not_pending') expect(outcome.record.result).toEqual(winner.record.result);
        }
        await eventually(() => expect(events).toHaveLength(2));
        expect((await drained(events)).map((event) => event.type)).toEqual([
          'interaction.created',
          'interaction.answered',
        ]);
        expect(events[1]!.record.result).toEqual(winner.record.result);
      });

      it('returns not_found for an unknown id', async () => {
        const outcome = await store.resolve('int_missing', {
          status: 'cancelled',
          result: null,
          resolvedAt: new Date().toISOString(),
        });
        expect(outcome).toEqual({ kind: 'not_found' });
      });

      it.each(['expired', 'cancelled'] as const)(
        'leaves a %s record unchanged and reports not_pending',
        async (status) => {
          const record = makeInteraction();
          const events = await collect();
          await store.create(record);
          const first = status === 'expired' ? answer(EXPIRED_MARKER, 'askgate') : null;
          await store.resolve(record.id, { status, result: first, resolvedAt: '2030-01-01T00:00:00.000Z' });
          await eventually(() => expect(events).toHaveLength(2));
          const before = await store.get(record.id);
          const outcome = await store.resolve(record.id, {
            status: 'answered',
            result: answer('late'),
            resolvedAt: new Date().toISOString(),
          });
          expect(outcome).toEqual({ kind: 'not_pending', record: before });
          expect(await store.get(record.id)).toEqual(before);
          expect(before?.status).toBe(status);
          expect(await drained(events)).toHaveLength(2);
        },
      );
    });

    describe('listPending', () => {
      async function createMany(
        count: number,
        overrides: Partial<StoredInteraction> = {},
      ): Promise<StoredInteraction[]> {
        const records: StoredInteraction[] = [];
        for (let i = 0; i < count; i++) {
          const record = makeInteraction({ question: `q${i}`, ...overrides });
          await store.create(record);
          records.push(record);
        }
        return records;
      }
      const ids = (items: StoredInteraction[]): string[] => items.map((item) => item.id);

      it('lists oldest first, honours the limit, and ends with a null cursor', async () => {
        const records = await createMany(5);
        const first = await store.listPending({ limit: 3, cursor: null, groupId: null });
        expect(ids(first.items)).toEqual(ids(records.slice(0, 3)));
        expect(first.items[0]).toEqual(records[0]);
        expect(first.nextCursor).not.toBeNull();
        const second = await store.listPending({ limit: 3, cursor: first.nextCursor, groupId: null });
        expect(ids(second.items)).toEqual(ids(records.slice(3)));
        expect(second.nextCursor).toBeNull();
      });

      it('keeps paging right while interactions are created and resolved between pages', async () => {
        const records = await createMany(10);
        const seen: string[] = [];
        let page = await store.listPending({ limit: 3, cursor: null, groupId: null });
        seen.push(...ids(page.items));
        // Between pages: resolve one already shown and two not yet shown, add newcomers.
        const resolvedAt = new Date().toISOString();
        for (const index of [1, 3, 6]) {
          await store.resolve(records[index]!.id, { status: 'cancelled', result: null, resolvedAt });
        }
        const newcomers = await createMany(2);
        while (page.nextCursor !== null) {
          page = await store.listPending({ limit: 3, cursor: page.nextCursor, groupId: null });
          seen.push(...ids(page.items));
          if (seen.length < 12) await store.create(makeInteraction());
        }
        expect(new Set(seen).size).toBe(seen.length);
        const stillPending = records.filter((_, i) => ![1, 3, 6].includes(i));
        for (const record of [...stillPending, ...newcomers]) expect(seen).toContain(record.id);
        expect(seen).not.toContain(records[3]!.id);
        expect(seen).not.toContain(records[6]!.id);
      });

      it('filters by group', async () => {
        const a = await createMany(2, { group_id: 'release-a' });
        await createMany(2, { group_id: 'release-b' });
        await createMany(1);
        const page = await store.listPending({ limit: 10, cursor: null, groupId: 'release-a' });
        expect(ids(page.items)).toEqual(ids(a));
        const none = await store.listPending({ limit: 10, cursor: null, groupId: 'no-such-group' });
        expect(none).toEqual({ items: [], nextCursor: null });
      });

      it('drops resolved interactions from the list and its group', async () => {
        const records = await createMany(3, { group_id: 'g1' });
        await store.resolve(records[1]!.id, {
          status: 'answered',
          result: answer('ok'),
          resolvedAt: new Date().toISOString(),
        });
        const all = await store.listPending({ limit: 10, cursor: null, groupId: null });
        expect(ids(all.items)).toEqual([records[0]!.id, records[2]!.id]);
        const group = await store.listPending({ limit: 10, cursor: null, groupId: 'g1' });
        expect(ids(group.items)).toEqual([records[0]!.id, records[2]!.id]);
      });

      it('refuses a cursor it did not issue', async () => {
        await expect(store.listPending({ limit: 10, cursor: 'garbage', groupId: null })).rejects.toMatchObject({
          code: 'invalid_request',
          field: 'cursor',
        });
      });
    });

    describe('popDue', () => {
      it('hands each due id to exactly one of several concurrent callers, once', async () => {
        const now = Date.now();
        const due: string[] = [];
        for (let i = 0; i < 12; i++) {
          const record = makeInteraction({ deadline_at: new Date(now - 10_000 + i).toISOString() });
          await store.create(record);
          due.push(record.id);
        }
        const later = makeInteraction({ deadline_at: new Date(now + 60_000).toISOString() });
        await store.create(later);
        const batches = await Promise.all(Array.from({ length: 4 }, () => store.popDue(now, 5)));
        const popped = batches.flat();
        expect(popped.length).toBe(12);
        expect(new Set(popped)).toEqual(new Set(due));
        expect(await store.popDue(now, 100)).toEqual([]);
        // Popping claims the deadline only: the record is still pending until someone resolves it.
        expect((await store.get(due[0]!))?.status).toBe('pending');
      });

      it('returns due ids earliest first, up to max, and counts a deadline equal to now as due', async () => {
        const now = Date.now();
        const second = makeInteraction({ deadline_at: new Date(now - 1000).toISOString() });
        const first = makeInteraction({ deadline_at: new Date(now - 2000).toISOString() });
        const exact = makeInteraction({ deadline_at: new Date(now).toISOString() });
        for (const record of [second, first, exact]) await store.create(record);
        expect(await store.popDue(now, 2)).toEqual([first.id, second.id]);
        expect(await store.popDue(now, 2)).toEqual([exact.id]);
      });

      it('no longer returns an interaction once it is resolved', async () => {
        const record = makeInteraction({ deadline_at: new Date(Date.now() - 1000).toISOString() });
        await store.create(record);
        await store.resolve(record.id, {
          status: 'answered',
          result: answer('y'),
          resolvedAt: new Date().toISOString(),
        });
        expect(await store.popDue(Date.now(), 10)).toEqual([]);
      });
    });

    describe('tickets', () => {
      it('keeps a ticket hash in its record, read by id, pending and resolved: the ticket names its record', async () => {
        const record = makeInteraction({ ticket_hash: hashTicketSecret(newTicketSecret()) });
        await store.create(record);
        expect((await store.get(record.id))?.ticket_hash).toBe(record.ticket_hash);
        await store.resolve(record.id, {
          status: 'answered',
          result: answer('x'),
          resolvedAt: new Date().toISOString(),
        });
        expect(await store.get(record.id)).toMatchObject({ status: 'answered', ticket_hash: record.ticket_hash });
        // A hash is only ever compared with the one its record holds, never looked up: two records may share one.
        const twin = makeInteraction({ ticket_hash: record.ticket_hash });
        await store.create(twin);
        expect((await store.get(twin.id))?.ticket_hash).toBe(record.ticket_hash);
      });

      it('forgets a resolved record and its ticket after the idle TTL', async () => {
        const short = await makeStore({ idleTtlSeconds: 2 });
        extra.push(short);
        const record = makeInteraction({ ticket_hash: ticketHash() });
        const untouched = makeInteraction();
        await short.store.create(record);
        await short.store.create(untouched);
        await short.store.resolve(record.id, {
          status: 'answered',
          result: answer('x'),
          resolvedAt: new Date().toISOString(),
        });
        // Read at once: two seconds of margin before the TTL, which reads do not extend.
        expect((await short.store.get(record.id))?.ticket_hash).toBe(record.ticket_hash);
        const resolvedAt = Date.now();
        // Gone after the TTL: polled rather than slept, with room for a loaded host's sweep.
        const deadline = resolvedAt + 12_000;
        while ((await short.store.get(record.id)) !== null) {
          if (Date.now() > deadline) throw new Error('the resolved record outlived its idle TTL by 10 s');
          await sleep(100);
        }
        expect(Date.now() - resolvedAt).toBeGreaterThanOrEqual(1_000);
        expect(await short.store.get(record.id)).toBeNull();
        expect(
          await short.store.resolve(record.id, {
            status: 'cancelled',
            result: null,
            resolvedAt: new Date().toISOString(),
          }),
        ).toEqual({
          kind: 'not_found',
        });
        // A pending record is not subject to the idle TTL.
        expect((await short.store.get(untouched.id))?.status).toBe('pending');
      });
    });

    describe('setDelivery', () => {
      it('persists the references and shows them in get()', async () => {
        const record = makeInteraction({ channel: 'telegram', recipient: '42' });
        await store.create(record);
        await store.setDelivery(record.id, { chat_id: '42', message_id: '1001' });
        // Without a ref, a delivery takes the one its references imply (src/store/delivery-refs.ts), and is found by it.
        expect(await store.get(record.id)).toEqual({
          ...record,
          delivery: { chat_id: '42', message_id: '1001', ref: '42:1001' },
        });
        expect((await store.findByDelivery('telegram', '42:1001'))?.id).toBe(record.id);
        await store.setDelivery(record.id, { recipient: '42' });
        expect((await store.get(record.id))?.delivery).toEqual({ recipient: '42' });
      });

      it('indexes delivery.ref for findByDelivery, per channel', async () => {
        const record = makeInteraction({ channel: 'telegram', recipient: '42' });
        await store.create(record);
        await store.setDelivery(record.id, { chat_id: '42', message_id: '7', ref: '42:7' });
        expect((await store.findByDelivery('telegram', '42:7'))?.id).toBe(record.id);
        expect(await store.findByDelivery('slack', '42:7')).toBeNull();
        expect(await store.findByDelivery('telegram', '42:8')).toBeNull();
      });

      it("reads the first surface's delivery back whole on each channel whose conversation is the recipient", async () => {
        // Telegram, Discord and Slack: the Redis form leaves out the conversation equal to the recipient (delivery-refs.ts).
        const cases: { channel: string; recipient: string; delivery: Record<string, string>; ref: string }[] = [
          { channel: 'telegram', recipient: '42', delivery: { chat_id: '42', message_id: '7' }, ref: '42:7' },
          { channel: 'discord', recipient: 'D1', delivery: { channel_id: 'D1', message_id: '8' }, ref: 'D1:8' },
          { channel: 'slack', recipient: 'C1', delivery: { channel: 'C1', ts: '1.5' }, ref: 'C1:1.5' },
          { channel: 'telegram', recipient: '43', delivery: { chat_id: '-100', message_id: '9' }, ref: '-100:9' },
        ];
        for (const c of cases) {
          const record = makeInteraction({ channel: c.channel, recipient: c.recipient });
          await store.create(record);
          await store.setDelivery(record.id, c.delivery);
          expect((await store.get(record.id))?.delivery).toEqual({ ...c.delivery, ref: c.ref });
          expect((await store.findByDelivery(c.channel, c.ref))?.id).toBe(record.id);
          // A receipt names the message by its ref, and moves that delivery, conversation and all.
          expect(await store.recordReceipt(record.id, c.ref, { status: 'read', rank: 3, state: 'read' })).toBe('moved');
          expect((await store.get(record.id))?.delivery).toMatchObject({ ...c.delivery, ref: c.ref, receipt: 'read' });
          await store.resolve(record.id, {
            status: 'answered',
            result: answer('yes'),
            resolvedAt: new Date().toISOString(),
          });
          // A late reply quoting the question still finds it after it resolved.
          expect((await store.findByDelivery(c.channel, c.ref))?.id).toBe(record.id);
        }
      });

      it('refuses an unknown id', async () => {
        await expect(store.setDelivery('int_missing', { chat_id: '1' })).rejects.toMatchObject({ code: 'not_found' });
        expect(await store.get('int_missing')).toBeNull();
      });
    });

    describe('pendingFor', () => {
      it("reads a recipient's pending questions on one channel, oldest first, under any of their spellings", async () => {
        const first = makeInteraction({ channel: 'twilio', recipient: '+15550100' });
        const other = makeInteraction({ channel: 'twilio', recipient: '+15550101' });
        const elsewhere = makeInteraction({ channel: 'whatsapp', recipient: '+15550100' });
        const second = makeInteraction({ channel: 'twilio', recipient: '15550100' });
        const answered = makeInteraction({ channel: 'twilio', recipient: '+15550100' });
        for (const r of [first, other, elsewhere, second, answered]) await store.create(r);
        await store.resolve(answered.id, {
          status: 'answered',
          result: answer('done'),
          resolvedAt: new Date().toISOString(),
        });
        const found = await store.pendingFor('twilio', ['+15550100', '15550100']);
        expect(found.map((r) => r.id)).toEqual([first.id, second.id]);
        expect(await store.pendingFor('twilio', ['+15550199'])).toEqual([]);
        await store.resolve(first.id, {
          status: 'answered',
          result: answer('done'),
          resolvedAt: new Date().toISOString(),
        });
        expect((await store.pendingFor('twilio', ['+15550100'])).map((r) => r.id)).toEqual([]);
      });
    });

    describe('recordReceipt', () => {
      const receipt = (
        status: string,
        rank: number,
        state: DeliveryState,
        error?: { code: string; message: string },
      ) => (error === undefined ? { status, rank, state } : { status, rank, state, error });

      it('moves a delivery forward only: a late or repeated receipt changes nothing, and failed is final', async () => {
        const record = makeInteraction({ channel: 'whatsapp', recipient: '15550001' });
        await store.create(record);
        await store.setDelivery(record.id, { message_id: 'wamid.1', ref: 'wamid.1', status: 'pending' });
        expect(await store.recordReceipt(record.id, 'wamid.1', receipt('delivered', 2, 'delivered'))).toBe('moved');
        expect(await store.recordReceipt(record.id, 'wamid.1', receipt('sent', 1, 'sent'))).toBe('unchanged');
        expect(await store.recordReceipt(record.id, 'wamid.1', receipt('delivered', 2, 'delivered'))).toBe('unchanged');
        expect((await store.get(record.id))?.delivery).toMatchObject({ status: 'delivered', receipt: 'delivered' });
        expect(toPublicRecord((await store.get(record.id)) as StoredInteraction).deliveries).toEqual([
          { channel: 'whatsapp', recipient: '15550001', message_id: 'wamid.1', status: 'delivered' },
        ]);
      });

      it('fails a pending question once, publishing interaction.delivery_failed, and then nothing moves it', async () => {
        const events = await collect();
        const record = makeInteraction({ channel: 'whatsapp', recipient: '15550002' });
        await store.create(record);
        await store.setDelivery(record.id, { message_id: 'wamid.2', ref: 'wamid.2' });
        const failure = { code: '131047', message: 'Re-engagement message' };
        expect(await store.recordReceipt(record.id, 'wamid.2', receipt('failed', 4, 'failed', failure))).toBe('failed');
        expect(await store.recordReceipt(record.id, 'wamid.2', receipt('read', 3, 'read'))).toBe('unchanged');
        expect(await store.recordReceipt(record.id, 'wamid.2', receipt('failed', 4, 'failed', failure))).toBe(
          'unchanged',
        );
        await eventually(() => expect(events.filter((e) => e.type === 'interaction.delivery_failed')).toHaveLength(1));
        const shown = events.find((e) => e.type === 'interaction.delivery_failed')?.record;
        expect(shown).toMatchObject({
          id: record.id,
          status: 'pending',
          undeliverable: true,
          deliveries: [{ channel: 'whatsapp', message_id: 'wamid.2', status: 'failed', error: failure }],
        });
      });

      it('refuses a receipt for an unknown id or another ref', async () => {
        const record = makeInteraction({ channel: 'twilio', recipient: '+15550003' });
        await store.create(record);
        await store.setDelivery(record.id, { message_id: 'SM3', ref: 'SM3' });
        expect(await store.recordReceipt('int_missing', 'SM3', receipt('sent', 4, 'sent'))).toBe('unknown');
        expect(await store.recordReceipt(record.id, 'SM4', receipt('sent', 4, 'sent'))).toBe('unknown');
        expect((await store.get(record.id))?.delivery).toEqual({ message_id: 'SM3', ref: 'SM3' });
      });
    });

    describe('hitWindow', () => {
      it('counts per key within a window and starts over in the next', async () => {
        const windowSeconds = 2;
        // Start early in a window so the first three hits share it.
        const intoWindow = Date.now() % (windowSeconds * 1000);
        if (intoWindow > 1000) await sleep(windowSeconds * 1000 - intoWindow + 20);
        const first = await store.hitWindow('client-a', windowSeconds);
        expect(first.count).toBe(1);
        expect(first.resetInSeconds).toBeGreaterThanOrEqual(1);
        expect(first.resetInSeconds).toBeLessThanOrEqual(windowSeconds);
        expect((await store.hitWindow('client-a', windowSeconds)).count).toBe(2);
        expect((await store.hitWindow('client-b', windowSeconds)).count).toBe(1);
        const third = await store.hitWindow('client-a', windowSeconds);
        expect(third.count).toBe(3);
        expect(third.resetInSeconds).toBeGreaterThanOrEqual(1);
        expect(third.resetInSeconds).toBeLessThanOrEqual(windowSeconds);
        await sleep(windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000)) + 20);
        expect((await store.hitWindow('client-a', windowSeconds)).count).toBe(1);
      });
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
