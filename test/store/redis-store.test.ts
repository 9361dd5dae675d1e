import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEvent, verifyChain } from '../../src/core/audit.js';
import type { InteractionEvent } from '../../src/core/types.js';
import { Keys } from '../../src/store/keys.js';
import { hashTicketSecret, newTicketSecret } from '../../src/core/ids.js';
import { lookupHash } from '../../src/store/redis/lookups.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { resolveLua } from '../../src/store/redis/scripts/index.js';
import type { StoreOptions } from '../../src/store/store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  answer,
  eventually,
  makeInteraction,
  runStoreContract,
  sleep,
  ticketHash,
  type StoreHandle,
} from './contract.js';
import { keysUnder, lookupsUnder } from './fixtures.js';
import { runAuditContract } from './audit-contract.js';
import { runSurfacesContract } from './surfaces-contract.js';

let server: RedisServerHandle;
let raw: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url);
});
afterAll(async () => {
  await raw.quit();
  await server.stop();
});

/** A prefix no other test uses, so tests never see each other's keys. */
function uniquePrefix(): string {
  return `{t${randomBytes(6).toString('hex')}}:`;
}

async function openStore(
  url: string,
  options: StoreOptions & { prefix?: string },
): Promise<StoreHandle & { store: RedisStore }> {
  const prefix = options.prefix ?? uniquePrefix();
  const store = await RedisStore.connect({ url, prefix, idleTtlSeconds: options.idleTtlSeconds });
  return {
    store,
    async cleanup() {
      await store.close();
      const keys = await keysUnder(raw, prefix);
      if (keys.length > 0) await raw.del(...keys);
    },
    recipientIndexes: async () => (await lookupsUnder(raw, prefix)).recipients,
    deliveryLookups: async () => (await lookupsUnder(raw, prefix)).deliveries,
  };
}

runStoreContract('RedisStore', (options) => openStore(server.url, options));
runAuditContract('RedisStore', (options) => openStore(server.url, options));
runSurfacesContract('RedisStore', (options) => openStore(server.url, options));

describe('RedisStore on a real redis-server', () => {
  const handles: StoreHandle[] = [];
  const open = async (options: StoreOptions & { prefix?: string } = { idleTtlSeconds: 60 }) => {
    const handle = await openStore(server.url, options);
    handles.push(handle);
    return handle.store;
  };
  afterEach(async () => {
    for (const handle of handles.splice(0)) await handle.cleanup();
  });

  it('delivers events across two store instances (two processes)', async () => {
    const prefix = uniquePrefix();
    const a = await open({ idleTtlSeconds: 60, prefix });
    const b = await open({ idleTtlSeconds: 60, prefix });
    const seenByB: InteractionEvent[] = [];
    b.subscribe((event) => seenByB.push(event));
    await b.eventsReady();
    const record = makeInteraction({ group_id: 'grp "quoted" \\ / ✓' });
    await a.create(record);
    const resolvedAt = new Date().toISOString();
    await a.resolve(record.id, { status: 'answered', result: answer({ ok: true, list: [] }), resolvedAt });
    await eventually(() => expect(seenByB.map((e) => e.type)).toEqual(['interaction.created', 'interaction.answered']));
    expect(seenByB[1]!.record).toMatchObject({
      id: record.id,
      group_id: record.group_id,
      status: 'answered',
      resolved_at: resolvedAt,
    });
    expect(seenByB[1]!.record.result?.answer).toEqual({ ok: true, list: [] });
  });

  it('lets exactly one of two instances win a resolve race', async () => {
    const prefix = uniquePrefix();
    const a = await open({ idleTtlSeconds: 60, prefix });
    const b = await open({ idleTtlSeconds: 60, prefix });
    const record = makeInteraction();
    await a.create(record);
    const resolvedAt = new Date().toISOString();
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).resolve(record.id, { status: 'answered', result: answer(i), resolvedAt }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'resolved')).toHaveLength(1);
  });

  it('isolates stores by key prefix', async () => {
    const prefixA = uniquePrefix();
    const a = await open({ idleTtlSeconds: 60, prefix: prefixA });
    const b = await open();
    const seenByB: InteractionEvent[] = [];
    b.subscribe((event) => seenByB.push(event));
    await b.eventsReady();
    const record = makeInteraction({
      ticket_hash: ticketHash(),
      group_id: 'g',
      deadline_at: new Date(Date.now() - 1).toISOString(),
    });
    await a.create(record);
    expect(await b.get(record.id)).toBeNull();
    expect((await b.listPending({ limit: 10, cursor: null, groupId: null })).items).toEqual([]);
    expect(await b.popDue(Date.now(), 10)).toEqual([]);
    // B's own create, published after A's, arrives after anything of A's that reached B would have: none did.
    const sentinel = makeInteraction();
    await b.create(sentinel);
    await eventually(() => expect(seenByB.map((e) => e.record.id)).toContain(sentinel.id));
    expect(seenByB.filter((e) => e.record.id !== sentinel.id)).toEqual([]);
    await b.resolve(sentinel.id, { status: 'cancelled', result: null, resolvedAt: new Date().toISOString() });
    // Every key the create wrote lives under A's prefix.
    const keys = new Keys(prefixA);
    expect(await keysUnder(raw, prefixA)).toEqual(
      [keys.interaction(record.id), keys.pending, keys.group('g'), keys.deadlines, keys.seq].sort(),
    );
  });

  it('stores a text ask as one compact string: status letter and body', async () => {
    const prefix = uniquePrefix();
    const store = await open({ idleTtlSeconds: 60, prefix });
    const record = makeInteraction();
    await store.create(record);
    const stored = await raw.get(new Keys(prefix).interaction(record.id));
    expect(stored?.split('\n')).toHaveLength(2);
    expect(stored?.startsWith('p\n')).toBe(true);
    expect(stored!.length).toBeLessThan(100);
  });

  it('stores a delivery without the ref its other references imply, reads it back whole, and keeps other refs', async () => {
    const prefix = uniquePrefix();
    const handle = await openStore(server.url, { idleTtlSeconds: 60, prefix });
    try {
      const tg = makeInteraction({ channel: 'telegram', recipient: '42' });
      const web = makeInteraction({ channel: 'web', recipient: 'ana' });
      for (const r of [tg, web]) await handle.store.create(r);
      await handle.store.setDelivery(tg.id, { chat_id: '42', message_id: '7', ref: '42:7' });
      await handle.store.setDelivery(web.id, { recipient: 'ana', ref: web.id });
      const keys = new Keys(prefix);
      // Part 8 of the envelope is the first surface's delivery (record-codec.ts).
      const part8 = async (id: string) => ((await raw.get(keys.interaction(id))) ?? '').split('\n')[7];
      // Nor the chat_id: it is the record's recipient (compactFirstDelivery in delivery-refs.ts).
      expect(await part8(tg.id)).toBe('{"message_id":"7"}');
      expect(await part8(web.id)).toBe(`{"recipient":"ana","ref":"${web.id}"}`);
      expect((await handle.store.get(tg.id))?.delivery).toEqual({ chat_id: '42', message_id: '7', ref: '42:7' });
      expect((await handle.store.get(web.id))?.delivery).toEqual({ recipient: 'ana', ref: web.id });
    } finally {
      await handle.cleanup();
    }
  });

  it("stores the first surface's delivery without the conversation equal to its recipient, other ones whole", async () => {
    const prefix = uniquePrefix();
    const handle = await openStore(server.url, { idleTtlSeconds: 60, prefix });
    try {
      const keys = new Keys(prefix);
      const part8 = async (id: string) => ((await raw.get(keys.interaction(id))) ?? '').split('\n')[7];
      const tg = makeInteraction({ channel: 'telegram', recipient: '42' });
      const group = makeInteraction({ channel: 'telegram', recipient: '43' });
      const slack = makeInteraction({ channel: 'slack', recipient: 'C1' });
      for (const r of [tg, group, slack]) await handle.store.create(r);
      await handle.store.setDelivery(tg.id, { chat_id: '42', message_id: '7' });
      await handle.store.setDelivery(group.id, { chat_id: '-100', message_id: '7' });
      await handle.store.setDelivery(slack.id, { channel: 'C1', ts: '1.5' });
      expect(await part8(tg.id)).toBe('{"message_id":"7"}');
      expect(await part8(group.id)).toBe('{"chat_id":"-100","message_id":"7"}');
      expect(await part8(slack.id)).toBe('{"ts":"1.5"}');
      // A receipt rewrites part 8 in Lua, in the same form.
      expect(await handle.store.recordReceipt(tg.id, '42:7', { status: 'read', rank: 3, state: 'read' })).toBe('moved');
      expect(JSON.parse((await part8(tg.id)) ?? '')).toEqual({
        message_id: '7',
        status: 'read',
        status_rank: '3',
        receipt: 'read',
      });
      // A further surface on the same channel keeps its full map.
      expect(await handle.store.addSurface(tg.id, { channel: 'telegram', recipient: '45' })).toBe('added');
      await handle.store.setDelivery(
        tg.id,
        { chat_id: '45', message_id: '3' },
        { channel: 'telegram', recipient: '45' },
      );
      const part11 = ((await raw.get(keys.interaction(tg.id))) ?? '').split('\n')[10];
      expect(part11).toContain('"chat_id":"45"');
      expect((await handle.store.findByDelivery('telegram', '45:3'))?.id).toBe(tg.id);
      // A re-send replaces the first surface's message: the old one's lookup goes, the new one is found.
      await handle.store.setDelivery(group.id, { chat_id: '-100', message_id: '8' });
      expect(await handle.store.findByDelivery('telegram', '-100:7')).toBeNull();
      expect((await handle.store.findByDelivery('telegram', '-100:8'))?.id).toBe(group.id);
    } finally {
      await handle.cleanup();
    }
  });

  it("writes the record's own channel as 0 in its delivery events, reads it as the channel, seals verify", async () => {
    const prefix = uniquePrefix();
    const handle = await openStore(server.url, { idleTtlSeconds: 60, prefix });
    try {
      const keys = new Keys(prefix);
      const part9 = async (id: string) => ((await raw.get(keys.interaction(id))) ?? '').split('\n')[8] ?? '';
      const record = makeInteraction({ channel: 'telegram', recipient: '42' });
      await handle.store.create(record);
      await handle.store.setDelivery(record.id, { chat_id: '42', message_id: '7' });
      const failure = { code: '403', message: 'blocked' };
      await handle.store.recordReceipt(record.id, '42:7', {
        status: 'failed',
        rank: 4,
        state: 'failed',
        error: failure,
      });
      await handle.store.addSurface(record.id, { channel: 'slack', recipient: 'C1' });
      await handle.store.setDelivery(record.id, { channel: 'C1', ts: '1.5' }, { channel: 'slack', recipient: 'C1' });
      const stored = JSON.parse(await part9(record.id)) as unknown[][];
      expect(stored.map((entry) => entry[2])).toEqual([0, 0, 'slack']);
      const events = (await handle.store.events(record.id)) as AuditEvent[];
      expect(events.map((e) => [e.type, e.surface])).toEqual([
        ['created', undefined],
        ['delivered', 'telegram'],
        ['delivery_failed', 'telegram'],
        ['delivered', 'slack'],
      ]);
      expect(verifyChain(events)).toEqual({ ok: true, count: 4 });
    } finally {
      await handle.cleanup();
    }
  });

  it('writes no ticket key and no per-question lookup key for a delivered channel ask', async () => {
    const prefix = uniquePrefix();
    const handle = await openStore(server.url, { idleTtlSeconds: 60, prefix });
    try {
      const tg = makeInteraction({
        channel: 'telegram',
        recipient: '77',
        ticket_hash: hashTicketSecret(newTicketSecret()),
      });
      const wa = makeInteraction({ channel: 'whatsapp', recipient: '15550077' });
      await handle.store.create(tg);
      await handle.store.create(wa);
      const kinds = async () =>
        [...new Set((await keysUnder(raw, prefix)).map((k) => k.slice(prefix.length).replace(/:.*$/, ':')))].sort();
      // Telegram's ref is <chat>:<message>, the chat its recipient: found through the recipient index, no field.
      await handle.store.setDelivery(tg.id, { chat_id: '77', message_id: '5', ref: '77:5' });
      expect((await kinds()).filter((k) => ['t:', 'rc:', 'dl:', 'db:'].includes(k))).toEqual([]);
      expect(await kinds()).toContain('rb:');
      // WhatsApp's ref (the message id) names no recipient: a field of the delivery lookup.
      await handle.store.setDelivery(wa.id, { wa_id: '15550077', message_id: 'wamid.Z', ref: 'wamid.Z' });
      expect((await kinds()).filter((k) => ['t:', 'rc:', 'dl:', 'db:'].includes(k))).toEqual(['db:']);
      expect((await handle.store.pendingFor('telegram', ['77'])).map((r) => r.id)).toEqual([tg.id]);
      expect((await handle.store.findByDelivery('telegram', '77:5'))?.id).toBe(tg.id);
      expect(await handle.store.findByDelivery('telegram', '77:6')).toBeNull();
      expect(await handle.store.findByDelivery('telegram', '78:5')).toBeNull();
      expect((await handle.store.findByDelivery('whatsapp', 'wamid.Z'))?.id).toBe(wa.id);
    } finally {
      await handle.cleanup();
    }
  });

  it("moves a resolved question's delivery lookups into a recently resolved window that expires by itself", async () => {
    const prefix = uniquePrefix();
    const handle = await openStore(server.url, { idleTtlSeconds: 60, prefix });
    try {
      const wa = makeInteraction({ channel: 'whatsapp', recipient: '15550088' });
      await handle.store.create(wa);
      await handle.store.setDelivery(wa.id, { wa_id: '15550088', message_id: 'wamid.R', ref: 'wamid.R' });
      expect((await lookupsUnder(raw, prefix)).deliveries).toEqual(['whatsapp:wamid.R']);
      await handle.store.resolve(wa.id, {
        status: 'answered',
        result: answer(true),
        resolvedAt: new Date().toISOString(),
      });
      expect((await lookupsUnder(raw, prefix)).deliveries).toEqual([]);
      const windows = await keysUnder(raw, `${prefix}rr:`);
      expect(windows).toHaveLength(1);
      const ttl = await raw.pttl(windows[0] as string);
      expect(ttl).toBeGreaterThan(59_000);
      expect(ttl).toBeLessThanOrEqual(60_000 + 15_000);
      expect((await handle.store.findByDelivery('whatsapp', 'wamid.R'))?.status).toBe('answered');
      expect(await handle.store.recordReceipt(wa.id, 'wamid.R', { status: 'read', rank: 3, state: 'read' })).toBe(
        'moved',
      );
    } finally {
      await handle.cleanup();
    }
  });

  it('buckets a lookup the same in Lua as in TypeScript', async () => {
    const texts = ['telegram:5000000123', 'whatsapp:wamid.HBgL', 'web:ana@example.org', 'slack:C1:1712.5', 'ü:✓'];
    for (const text of texts) {
      const lua = await raw.eval(resolveLua('--- @include "includes/lookupHash"\nreturn lookupHash(ARGV[1])'), 0, text);
      expect(lua).toBe(lookupHash(text));
    }
  });

  it('stores one copy of a form schema shared by many asks, verbatim', async () => {
    const prefix = uniquePrefix();
    const store = await open({ idleTtlSeconds: 60, prefix });
    const schema = { type: 'object', required: [], properties: { a: { type: 'string', enum: [] } } };
    for (let i = 0; i < 3; i++) await store.create(makeInteraction({ answer_format: 'form', schema }));
    const schemaKeys = await keysUnder(raw, `${prefix}s:`);
    expect(schemaKeys).toHaveLength(1);
    expect(await raw.get(schemaKeys[0]!)).toBe(JSON.stringify(schema));
    expect(await raw.pttl(schemaKeys[0]!)).toBeGreaterThan(0);
  });

  it("keeps a pending record's expiry through every script that rewrites it", async () => {
    const prefix = uniquePrefix();
    const store = await open({ idleTtlSeconds: 60, prefix });
    const keys = new Keys(prefix);
    const record = makeInteraction({ channel: 'whatsapp', recipient: '15550099' });
    await store.create(record);
    const key = keys.interaction(record.id);
    const before = await raw.pttl(key);
    expect(before).toBeGreaterThan(60_000);
    const rewrites: Array<[string, () => Promise<unknown>]> = [
      [
        'set-delivery',
        () => store.setDelivery(record.id, { wa_id: '15550099', message_id: 'wamid.K', ref: 'wamid.K' }),
      ],
      ['add-surface', () => store.addSurface(record.id, { channel: 'telegram', recipient: '46' })],
      ['delivery-receipt', () => store.recordReceipt(record.id, 'wamid.K', { status: 'read', rank: 3, state: 'read' })],
      ['audit-append', () => store.appendEvent(record.id, { type: 'reminded' })],
      ['audit-seal', () => store.events(record.id)],
    ];
    for (const [script, rewrite] of rewrites) {
      const stored = await raw.get(key);
      await rewrite();
      expect(await raw.get(key), `${script} rewrote the record`).not.toBe(stored);
      const ttl = await raw.pttl(key);
      expect(ttl, `${script} kept the expiry`).toBeGreaterThan(before - 10_000);
      expect(ttl, `${script} kept the expiry`).toBeLessThanOrEqual(before);
    }
    // resolve, on a vote that does not reach the quorum yet.
    const quorum = makeInteraction({
      answer_format: 'confirm',
      approvers: ['a', 'b'],
      quorum: { approve: 2, reject: 2 },
    });
    await store.create(quorum);
    const quorumBefore = await raw.pttl(keys.interaction(quorum.id));
    const at = new Date().toISOString();
    const vote = { by: 'a', answer: true, surface: 'inbox', at };
    expect(
      (await store.castVote(quorum.id, vote, { status: 'answered', result: answer(true, 'a'), resolvedAt: at })).kind,
    ).toBe('voted');
    const quorumTtl = await raw.pttl(keys.interaction(quorum.id));
    expect(quorumTtl, 'resolve kept the expiry of a vote short of the quorum').toBeGreaterThan(quorumBefore - 10_000);
    expect(quorumTtl).toBeLessThanOrEqual(quorumBefore);
  });

  it('really drops a resolved record and its ticket from Redis after the idle TTL', async () => {
    const prefix = uniquePrefix();
    const store = await open({ idleTtlSeconds: 1, prefix });
    const keys = new Keys(prefix);
    const record = makeInteraction({
      ticket_hash: ticketHash(),
      answer_format: 'form',
      schema: { type: 'object', required: [] },
    });
    await store.create(record);
    // The safety net: a pending record expires at deadline + idle TTL even if nothing ever resolves it.
    const pendingTtl = await raw.pttl(keys.interaction(record.id));
    // Against the record's own deadline: fixtures made in a burst by earlier tests get creation times ahead of the
    // clock (strictly increasing), so "now + 5 minutes" would not be this record's deadline.
    const untilDeadlinePlusIdle = Date.parse(record.deadline_at) + 1_000 - Date.now();
    expect(pendingTtl).toBeGreaterThan(untilDeadlinePlusIdle - 1_000);
    expect(pendingTtl).toBeLessThanOrEqual(untilDeadlinePlusIdle + 1_000);
    await store.resolve(record.id, { status: 'expired', result: null, resolvedAt: new Date().toISOString() });
    expect(await raw.pttl(keys.interaction(record.id))).toBeLessThanOrEqual(1000);
    await sleep(1300);
    expect(await raw.exists(keys.interaction(record.id))).toBe(0);
    expect(await raw.zscore(keys.pending, record.id)).toBeNull();
    expect(await raw.zscore(keys.deadlines, record.id)).toBeNull();
  });

  describe('scripts when the record is missing', () => {
    it('resolve reports not_found and writes nothing', async () => {
      const prefix = uniquePrefix();
      const store = await open({ idleTtlSeconds: 60, prefix });
      const seen: InteractionEvent[] = [];
      store.subscribe((event) => seen.push(event));
      await store.eventsReady();
      expect(
        await store.resolve('int_gone', { status: 'cancelled', result: null, resolvedAt: new Date().toISOString() }),
      ).toEqual({
        kind: 'not_found',
      });
      expect(await keysUnder(raw, prefix)).toEqual([]);
      // A create published after the refused resolve arrives after anything that resolve could have published.
      const sentinel = makeInteraction();
      await store.create(sentinel);
      await eventually(() => expect(seen.map((e) => e.record.id)).toContain(sentinel.id));
      expect(seen.filter((e) => e.record.id !== sentinel.id)).toEqual([]);
    });

    it('setDelivery does not re-create an expired hash', async () => {
      const prefix = uniquePrefix();
      const store = await open({ idleTtlSeconds: 60, prefix });
      const record = makeInteraction();
      await store.create(record);
      await raw.del(new Keys(prefix).interaction(record.id));
      await expect(store.setDelivery(record.id, { chat_id: '1' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await raw.exists(new Keys(prefix).interaction(record.id))).toBe(0);
    });

    it('listPending skips and removes index entries whose record vanished', async () => {
      const prefix = uniquePrefix();
      const keys = new Keys(prefix);
      const store = await open({ idleTtlSeconds: 60, prefix });
      const gone = makeInteraction({ group_id: 'g' });
      const kept = makeInteraction({ group_id: 'g' });
      await store.create(gone);
      await store.create(kept);
      await raw.del(keys.interaction(gone.id));
      expect((await store.listPending({ limit: 10, cursor: null, groupId: null })).items.map((r) => r.id)).toEqual([
        kept.id,
      ]);
      expect((await store.listPending({ limit: 10, cursor: null, groupId: 'g' })).items.map((r) => r.id)).toEqual([
        kept.id,
      ]);
      expect(await raw.zscore(keys.pending, gone.id)).toBeNull();
      expect(await raw.zscore(keys.group('g'), gone.id)).toBeNull();
    });
  });
});

// These tests stop, restart and flush their server, so they always start one of their own, even with REDIS_URL.
describe('RedisStore across a Redis restart and outage', () => {
  let own: RedisServerHandle;
  let ownRaw: Redis;
  beforeAll(async () => {
    own = await startRedisServer({ own: true });
    ownRaw = new Redis(own.url);
    // This connection sees the outages the tests cause; they are expected, not worth a console line.
    ownRaw.on('error', () => {});
  });
  afterAll(async () => {
    ownRaw.disconnect();
    await own.stop().catch(() => {});
  });

  it('keeps a pending text ask well under 600 bytes of Redis memory', async () => {
    // The default prefix: key names are part of the cost, so measure what a deployment stores.
    const store = await RedisStore.connect({ url: own.url, idleTtlSeconds: 86_400 });
    const count = 5000;
    const before = Number(/used_memory:(\d+)/.exec(await ownRaw.info('memory'))![1]);
    // In batches: thousands of scripts in flight at once would leave client buffers in the measurement.
    for (let batch = 0; batch < count; batch += 100) {
      const creates: Promise<void>[] = [];
      for (let i = batch; i < batch + 100; i++) {
        // Ids as src/core/ids.ts mints them: 96 random bits in base64url.
        const id = randomBytes(12).toString('base64url');
        creates.push(
          store.create(makeInteraction({ id, question: `Approve deploy #${i} of api-gateway to production?` })),
        );
      }
      await Promise.all(creates);
    }
    const after = Number(/used_memory:(\d+)/.exec(await ownRaw.info('memory'))![1]);
    const perAsk = (after - before) / count;
    console.info(`redis used_memory per pending text ask: ${perAsk.toFixed(0)} bytes`);
    expect(perAsk).toBeLessThan(600);
    await store.close();
    await ownRaw.flushall();
  });

  it('works again after redis-server restarts, events included', async () => {
    const store = await RedisStore.connect({ url: own.url, prefix: uniquePrefix(), idleTtlSeconds: 60 });
    try {
      const seen: InteractionEvent[] = [];
      store.subscribe((event) => seen.push(event));
      await store.eventsReady();
      await own.restart();
      const record = makeInteraction();
      await store.create(record);
      expect((await store.get(record.id))?.id).toBe(record.id);
      await store.ping();
      // The subscriber reconnects on its own schedule; keep creating until one event makes it through.
      await eventually(() => {
        if (!seen.some((event) => event.type === 'interaction.created')) {
          void store.create(makeInteraction());
          throw new Error('no event since the restart yet');
        }
      }, 10_000);
    } finally {
      await store.close();
    }
  });

  it('ping rejects with store_unavailable while Redis is down, and resolves once it is back', async () => {
    const store = await RedisStore.connect({ url: own.url, prefix: uniquePrefix(), idleTtlSeconds: 60 });
    try {
      await store.ping();
      await own.stop();
      await expect(store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.get('int_x')).rejects.toMatchObject({ code: 'store_unavailable' });
      await own.restart();
      await eventually(() => store.ping());
    } finally {
      await store.close();
    }
  });

  it('refuses to connect to a Redis that is not there', async () => {
    await expect(RedisStore.connect({ url: 'redis://127.0.0.1:1', idleTtlSeconds: 60 })).rejects.toMatchObject({
      code: 'store_unavailable',
    });
  });
});
