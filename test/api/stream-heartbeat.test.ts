import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../src/core/event-hub.js';
import { TokenAuthenticator } from '../../src/doors/auth.js';
import { streamRouter } from '../../src/doors/stream.js';
import { MemoryOperatorSignals } from '../../src/store/memory-operator-signals.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * The SSE door's heartbeat (docs/doors.md: a comment line keeps proxies from closing an idle stream). The router is
 * mounted with a 150 ms heartbeat instead of the gateway's 15 s, on a real socket.
 */

const TOKEN = 'stream-heartbeat-token-0123456789';
const HEARTBEAT_MS = 150;
let url: string;
let close: () => Promise<void>;
let store: MemoryStore;

beforeAll(async () => {
  store = new MemoryStore({ idleTtlSeconds: 3600 });
  const auth = new TokenAuthenticator(
    new Map([[TOKEN, { name: 'watcher', scopes: new Set(['read'] as const), webhookSecret: null }]]),
  );
  const app = express();
  app.use(streamRouter(new EventHub(store), auth, new MemoryOperatorSignals(), HEARTBEAT_MS));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/interactions/stream`;
  close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  };
});

afterAll(async () => {
  await close?.();
  await store?.close();
});

describe('the SSE heartbeat', () => {
  it('writes a comment line on every beat of an idle stream, and nothing else', async () => {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let wire = '';
    const started = Date.now();
    // Three beats: one could be a fluke of the first write, three show it keeps beating while nothing happens.
    while ((wire.match(/^: ping$/gm) ?? []).length < 3) {
      if (Date.now() - started > 20_000) throw new Error(`no third heartbeat; the stream so far: ${wire}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended; it said: ${wire}`);
      wire += decoder.decode(value, { stream: true });
    }
    controller.abort();
    // The first frame says the stream is open; after it, only heartbeats: no event was published.
    expect(wire.startsWith(': connected\n\n')).toBe(true);
    expect(wire.slice(': connected\n\n'.length)).toMatch(/^(: ping\n\n)+$/);
    // Not written in a burst: three beats take at least two intervals.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * HEARTBEAT_MS);
  });
});
