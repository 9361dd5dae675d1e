import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelState, PacingAccount } from '../../src/core/channel-state.js';

/**
 * What every ChannelState must do (src/core/channel-state.ts), run against each implementation. `a` and `b` are two
 * processes' views of one deployment's state: two instances on one Redis (each on its own connections), or the one
 * in-memory instance twice (memory is one process). Pacing is judged on the decisions — the slots and waits returned,
 * which come from the state's own clock — never on how long anything took.
 */
export interface ChannelStateWorld {
  a: ChannelState;
  b: ChannelState;
  close(): Promise<void>;
}

let names = 0;
/** A name no other test (or earlier run on the same Redis) used. */
const fresh = (what: string): string => `${what}-${Date.now()}-${++names}`;
const account = (): PacingAccount => ({ platform: 'contract', account: fresh('account') });

export function runChannelStateContract(label: string, open: () => Promise<ChannelStateWorld>): void {
  describe(`ChannelState contract: ${label}`, () => {
    let world: ChannelStateWorld;
    beforeAll(async () => {
      world = await open();
    });
    afterAll(async () => {
      await world?.close();
    });

    describe('pacing slots', () => {
      it("gives an account's calls distinct slots, at most its rate in any second, over both processes", async () => {
        const budget = account();
        const rate = 5;
        const decided = await Promise.all(
          Array.from({ length: 15 }, (_, i) => (i % 2 ? world.a : world.b).pacing.reserve(budget, null, rate, 0)),
        );
        const slots = decided.map((d) => d.slotAt).sort((x, y) => x - y);
        expect(new Set(slots).size).toBe(15);
        // Slot k is at floor(k * 1000 / 5): any 6 consecutive slots span at least a second.
        for (let i = rate; i < slots.length; i++)
          expect((slots[i] as number) - (slots[i - rate] as number)).toBeGreaterThanOrEqual(1000);
        for (const d of decided) expect(d.wait).toBeGreaterThanOrEqual(0);
      });

      it("keeps one chat's calls an interval apart, whichever process reserves", async () => {
        const budget = account();
        const decided = await Promise.all(
          Array.from({ length: 4 }, (_, i) => (i % 2 ? world.a : world.b).pacing.reserve(budget, 'chat', 1000, 1500)),
        );
        const slots = decided.map((d) => d.slotAt).sort((x, y) => x - y);
        for (let i = 1; i < slots.length; i++)
          expect((slots[i] as number) - (slots[i - 1] as number)).toBeGreaterThanOrEqual(1500);
      });

      it("does not hold a chat up behind another chat's interval, nor an account behind another's", async () => {
        const budget = account();
        const first = await world.a.pacing.reserve(budget, 'busy', 1000, 60_000);
        const second = await world.b.pacing.reserve(budget, 'busy', 1000, 60_000);
        expect(second.slotAt).toBeGreaterThanOrEqual(first.slotAt + 60_000);
        const other = await world.b.pacing.reserve(budget, 'quiet', 1000, 60_000);
        expect(other.slotAt).toBeLessThan(first.slotAt + 60_000);
        const elsewhere = await world.a.pacing.reserve(account(), 'busy', 1000, 60_000);
        expect(elsewhere.slotAt).toBeLessThan(first.slotAt + 60_000);
      });

      it('holds every chat of the account back past an account-wide push-back, only ever moving it later', async () => {
        const budget = account();
        const before = await world.a.pacing.reserve(budget, 'probe', 1000, 0);
        const now = before.slotAt - before.wait;
        expect(await world.a.pacing.pushBack(budget, null, 30_000)).toBe(30_000);
        // A shorter refusal after it leaves the longer one in place: the wait left is the first's.
        const left = await world.b.pacing.pushBack(budget, null, 1_000);
        expect(left).toBeGreaterThan(1_000);
        expect(left).toBeLessThanOrEqual(30_000);
        for (const chat of ['x', 'y', null]) {
          const d = await world.b.pacing.reserve(budget, chat, 1000, 0);
          expect(d.slotAt).toBeGreaterThanOrEqual(now + 30_000);
        }
      });

      it('holds back only the chat a chat push-back names', async () => {
        const budget = account();
        const before = await world.a.pacing.reserve(budget, 'probe', 1000, 0);
        const now = before.slotAt - before.wait;
        await world.a.pacing.pushBack(budget, 'pushed', 30_000);
        expect((await world.b.pacing.reserve(budget, 'pushed', 1000, 0)).slotAt).toBeGreaterThanOrEqual(now + 30_000);
        expect((await world.b.pacing.reserve(budget, 'free', 1000, 0)).slotAt).toBeLessThan(now + 30_000);
      });

      it('lets one call through the departure gate per interval, and measures the next from a return', async () => {
        const budget = account();
        expect(await world.a.pacing.depart(budget, 'gate', 60_000, false)).toBe(0);
        const wait = await world.b.pacing.depart(budget, 'gate', 60_000, false);
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60_000);
        expect(await world.b.pacing.depart(budget, 'other gate', 60_000, false)).toBe(0);
        // A return is recorded whatever came before, and the next departure waits from it.
        expect(await world.a.pacing.depart(budget, 'returned', 60_000, true)).toBe(0);
        expect(await world.b.pacing.depart(budget, 'returned', 60_000, false)).toBeGreaterThan(0);
      });

      it('takes exactly one of many concurrent departures through the gate', async () => {
        const budget = account();
        const waits = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? world.a : world.b).pacing.depart(budget, 'race', 60_000, false),
          ),
        );
        expect(waits.filter((w) => w === 0)).toHaveLength(1);
      });
    });

    describe('chat logs', () => {
      it('keeps the last entries of a log, oldest first, each exactly as appended', async () => {
        const log = { channel: 'contract', conversation: fresh('person') };
        const entries = ['one', '{"json":"two"}', 'three: "quoted", ünïcode ✓\nand a line'];
        for (const entry of entries) await world.a.chatLogs.append(log, entry, { keep: 2, retentionMs: 60_000 });
        expect(await world.b.chatLogs.read(log)).toEqual(['{"json":"two"}', 'three: "quoted", ünïcode ✓\nand a line']);
        expect(await world.b.chatLogs.read({ channel: 'contract', conversation: fresh('nobody') })).toEqual([]);
        expect(await world.b.chatLogs.read({ channel: 'another', conversation: log.conversation })).toEqual([]);
      });

      it("tells every process's subscribers of its channel of each append, and stops when unsubscribed", async () => {
        const channel = fresh('channel');
        const heard: Array<[string, string]> = [];
        const elsewhere: string[] = [];
        const stop = world.b.chatLogs.subscribe(channel, (conversation, entry) => heard.push([conversation, entry]));
        const stopElsewhere = world.b.chatLogs.subscribe(fresh('other-channel'), (_c, entry) => elsewhere.push(entry));
        // The subscription may take a moment to reach a shared state: probe until one append is heard.
        const probe = { channel, conversation: 'probe' };
        for (let i = 0; i < 200 && heard.length === 0; i++) {
          await world.a.chatLogs.append(probe, 'probe', { keep: 1, retentionMs: 60_000 });
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(heard.length).toBeGreaterThan(0);
        heard.length = 0;
        const limits = { keep: 10, retentionMs: 60_000 };
        await world.a.chatLogs.append({ channel, conversation: 'p1' }, 'hello "there"', limits);
        await world.b.chatLogs.append({ channel, conversation: 'p2' }, 'second', limits);
        await until(() => heard.length >= 2);
        expect(heard).toEqual([
          ['p1', 'hello "there"'],
          ['p2', 'second'],
        ]);
        stop();
        await world.a.chatLogs.append({ channel, conversation: 'p1' }, 'unheard', limits);
        // A later subscriber still hears: the unsubscribed one is the one that does not.
        const after: string[] = [];
        const stopAfter = world.b.chatLogs.subscribe(channel, (_c, entry) => after.push(entry));
        await world.a.chatLogs.append({ channel, conversation: 'p1' }, 'heard again', limits);
        await until(() => after.includes('heard again'));
        expect(heard).toHaveLength(2);
        expect(elsewhere).toEqual([]);
        stopAfter();
        stopElsewhere();
      });
    });

    describe('conversation references', () => {
      it('recalls what was last remembered for a recipient on a channel, until forgotten', async () => {
        const recipient = fresh('person');
        expect(await world.a.conversations.recall('contract', recipient)).toBeNull();
        await world.a.conversations.remember('contract', recipient, '{"conversation":"c-1"}', 60_000);
        expect(await world.b.conversations.recall('contract', recipient)).toBe('{"conversation":"c-1"}');
        expect(await world.b.conversations.recall('another', recipient)).toBeNull();
        await world.b.conversations.remember('contract', recipient, '{"conversation":"c-2"}', 60_000);
        expect(await world.a.conversations.recall('contract', recipient)).toBe('{"conversation":"c-2"}');
        await world.a.conversations.forget('contract', recipient);
        expect(await world.b.conversations.recall('contract', recipient)).toBeNull();
      });
    });

    describe('event dedupe', () => {
      it('takes an event id once across processes, and again once its claim is given back', async () => {
        const key = fresh('update');
        expect(await world.a.dedupe.firstSeen(key, 60_000)).toBe(true);
        expect(await world.b.dedupe.firstSeen(key, 60_000)).toBe(false);
        expect(await world.a.dedupe.firstSeen(key, 60_000)).toBe(false);
        await world.b.dedupe.forget(key);
        expect(await world.a.dedupe.firstSeen(key, 60_000)).toBe(true);
      });

      it('gives one of many concurrent claims of an id the first sight', async () => {
        const key = fresh('race');
        const claims = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? world.a : world.b).dedupe.firstSeen(key, 60_000)),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
      });
    });
  });
}

/** Resolves once `done` holds, looking every 10 ms, for at most 5 s (then fails, naming nothing but the wait). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the awaited appends were not heard within 5 s');
}
