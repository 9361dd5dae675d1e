import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TokenAuthenticator } from '../../src/doors/auth.js';
import { errorHandler } from '../../src/doors/error-status.js';
import { mcpRouter } from '../../src/mcp/http-mount.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * An MCP session nobody uses ends by itself: a client that went away without DELETE does not hold its server and its
 * stored events for good. The door is mounted here with a short idle time over a real gateway's service and tokens,
 * on vitest's fake clock for the door's own time (its Date and its sweep's setInterval; the HTTP traffic keeps real
 * timers): the session's age is what the test moves the clock by, never how long a loaded host took.
 */

const IDLE_MS = 400;
let gw: TestGateway;
let server: Server;
let door: ReturnType<typeof mcpRouter>;
let url: string;

beforeAll(async () => {
  gw = await startTestGateway();
  // After the gateway started (its own timers stay real), before the door is built (its sweep is a fake interval).
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: Date.now() });
  door = mcpRouter({
    auth: new TokenAuthenticator(gw.gateway.config.tokens),
    service: gw.gateway.service,
    sessionIdleMs: IDLE_MS,
  });
  const app = express();
  app.use(door.router);
  app.use(errorHandler(gw.gateway.logger));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  vi.useRealTimers();
  await door?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gw?.close();
});

const listTools = (sessionId: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${gw.token}`,
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });

describe('an idle MCP session', () => {
  it('lives while it is used, and ends once no response of it has been open for the idle time', async () => {
    // A client that opens a session and goes away without DELETE (no event stream left open).
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${gw.token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    await init.text();
    const sessionId = init.headers.get('mcp-session-id') as string;
    expect(sessionId).toBeTypeOf('string');
    // Used just short of its idle time after each response closed, it lives on: the clock has not reached it.
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(IDLE_MS - 1);
      expect((await listTools(sessionId)).status).toBe(200);
    }
    // Idle past its time (and a sweep), the session is gone: its id is unknown, as after a DELETE.
    vi.advanceTimersByTime(IDLE_MS * 2);
    const after = await listTools(sessionId);
    expect(after.status).toBe(404);
    expect(((await after.json()) as { message: string }).message).toMatch(/names no open session/);
  });
});
