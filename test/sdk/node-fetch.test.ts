import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepAliveFetch } from '../../packages/askgate-sdk/src/node-fetch.js';

/**
 * The SDK's own fetch (node:http with keep-alive) keeps fetch's body contract for a response it read whole: each
 * body method reads the body once, a second read rejects with a TypeError, `bodyUsed` says so, and `body`, `blob()`
 * and `clone()` work as on any Response.
 */

let server: Server;
let base: string;
const fetchWhole = keepAliveFetch();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/empty') {
      res.writeHead(204, { 'x-kind': 'empty' });
      res.end();
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '7' });
    res.end(JSON.stringify({ hello: 'wörld', n: 1 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const BODY = '{"hello":"wörld","n":1}';

describe("the SDK's keep-alive fetch", () => {
  it('gives status, headers and the body once', async () => {
    const response = await fetchWhole(`${base}/json`);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ hello: 'wörld', n: 1 });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toBeInstanceOf(TypeError);
    await expect(response.arrayBuffer()).rejects.toBeInstanceOf(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it('reads the bytes as text, as an ArrayBuffer and as bytes', async () => {
    expect(await (await fetchWhole(`${base}/json`)).text()).toBe(BODY);
    const buffer = await (await fetchWhole(`${base}/json`)).arrayBuffer();
    expect(Buffer.from(buffer).toString('utf8')).toBe(BODY);
    expect(buffer.byteLength).toBe(Buffer.byteLength(BODY));
    expect(await (await fetchWhole(`${base}/json`)).blob().then((b) => b.text())).toBe(BODY);
  });

  it('streams the body when asked for it, and counts that as the read', async () => {
    const response = await fetchWhole(`${base}/json`);
    const body = response.body;
    expect(body).not.toBeNull();
    expect(await new Response(body).text()).toBe(BODY);
    expect(response.bodyUsed).toBe(true);
    await expect(response.json()).rejects.toBeInstanceOf(TypeError);
  });

  it('clones an unread response into two readable ones', async () => {
    const response = await fetchWhole(`${base}/json`);
    const copy = response.clone();
    expect(await copy.text()).toBe(BODY);
    expect(await response.text()).toBe(BODY);
  });

  it('has no body for a 204', async () => {
    const response = await fetchWhole(`${base}/empty`);
    expect(response.status).toBe(204);
    expect(response.headers.get('x-kind')).toBe('empty');
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
  });
});
