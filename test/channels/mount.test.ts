import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelCore, ChannelPlugin } from '../../channels/contract.js';
import { json, text, type WebhookRequest } from '../../channels/http.js';
import { channelDoors } from '../../channels/mount.js';
import { webhookRoutes } from '../../channels/pipeline.js';

/**
 * The gateway's one adapter from express to the framework-free webhooks: a channel it has never heard of declares
 * its routes, and they are served — raw bytes in, the handler's status, headers and body out.
 */
const seen: WebhookRequest[] = [];
const firstSeenKeys = new Set<string>();

const demo = {
  name: 'demo',
  webhooks: (core: ChannelCore) =>
    webhookRoutes<string>(
      {
        channel: 'demo',
        path: '/channels/demo/webhook',
        maxBodyBytes: 64,
        secret: 'demo-secret',
        verify: ({ secret, headers }) =>
          headers['x-demo-secret'] === secret ? { ok: true } : { ok: false, reason: 'X-Demo-Secret is wrong' },
        parse: (raw, request) => {
          seen.push(request);
          return [raw.toString('utf8')];
        },
        dedupeKey: (body) => `demo:${body}`,
        dispatch: async (body) => (body === 'xml' ? text(200, '<Response/>', 'text/xml; charset=utf-8') : undefined),
        handshake: (request) => json(200, { echo: request.query['challenge'] ?? null }),
      },
      core,
    ),
} as unknown as ChannelPlugin; // only the webhook face is under test here

// The demo's pipeline needs only the seen set from the port; the rest is never called.
const core = {
  firstSeen: async (key: string) => {
    const first = !firstSeenKeys.has(key);
    firstSeenKeys.add(key);
    return first;
  },
  forgetSeen: async (key: string) => {
    firstSeenKeys.delete(key);
  },
} as unknown as ChannelCore;

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(channelDoors([demo], core));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (body: string, secret = 'demo-secret', path = '/channels/demo/webhook?a=1&a=2&b=%20x') =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'x-demo-secret': secret, 'content-type': 'application/json' },
    body,
  });

describe('channel doors mounted from declared routes', () => {
  it('hands the handler the raw bytes, path, query and headers, and sends its answer', async () => {
    const res = await post('{"a": "\\u00e9"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const request = seen.at(-1);
    expect(request?.rawBody.toString('utf8')).toBe('{"a": "\\u00e9"}');
    expect(request).toMatchObject({
      method: 'POST',
      path: '/channels/demo/webhook',
      query: { a: '1', b: ' x' },
      url: '/channels/demo/webhook?a=1&a=2&b=%20x',
    });
    expect(request?.headers['x-demo-secret']).toBe('demo-secret');
  });

  it('sends a string body with its content type, and the 401 of a refused signature as JSON', async () => {
    const xml = await post('xml');
    expect(xml.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await xml.text()).toBe('<Response/>');
    const refused = await post('x', 'wrong');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('serves the GET handshake on the same path, and refuses a body over the declared size', async () => {
    const get = await fetch(`${base}/channels/demo/webhook?challenge=42`);
    expect(await get.json()).toEqual({ echo: '42' });
    expect((await post('y'.repeat(65))).status).toBe(413);
  });
});
