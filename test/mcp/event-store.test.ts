import { expect, it } from 'vitest';
import { BoundedEventStore } from '../../src/mcp/event-store.js';

/** The `/mcp` sessions' event store: what a stream resumed with Last-Event-ID replays, and its bound. */

const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { n } });

async function replay(store: BoundedEventStore, after: string): Promise<{ stream: string; got: number[] }> {
  const got: number[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (_id, m) => {
      got.push((m as unknown as { params: { n: number } }).params.n);
    },
  });
  return { stream, got };
}

it('replays the events of the same stream after the last one seen, in order', async () => {
  const store = new BoundedEventStore();
  const first = await store.storeEvent('s1', message(1));
  await store.storeEvent('s2', message(100));
  await store.storeEvent('s1', message(2));
  await store.storeEvent('s1', message(3));
  expect(await store.getStreamIdForEventId(first)).toBe('s1');
  expect(await replay(store, first)).toEqual({ stream: 's1', got: [2, 3] });
});

it('keeps only the newest events; an event it dropped replays nothing', async () => {
  const store = new BoundedEventStore(2);
  const first = await store.storeEvent('s1', message(1));
  const second = await store.storeEvent('s1', message(2));
  await store.storeEvent('s1', message(3));
  expect(await replay(store, first)).toEqual({ stream: '', got: [] });
  expect(await replay(store, second)).toEqual({ stream: 's1', got: [3] });
});
