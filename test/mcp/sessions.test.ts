import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { until } from '../park/helpers.js';

/**
 * The `/mcp` door's sessions as docs/mcp.md states them, over plain HTTP so every header and event is visible:
 * "Streams are resumable: a client that lost its stream reconnects with Last-Event-ID and gets what it missed", and
 * "one gateway holds at most 1000 sessions (429 with Retry-After beyond)". Each on a gateway of its own.
 */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface SseEvent {
  id: string | null;
  data: string;
}

/** Reads SSE events from `body` and hands each to `onEvent` until it returns true (or the stream ends). */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => boolean): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end !== -1) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const lines = block.split('\n');
        const id =
          lines
            .find((l) => l.startsWith('id:'))
            ?.slice(3)
            .trim() ?? null;
        const data = lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n');
        if (onEvent({ id, data })) return;
        end = buffered.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Opens a session with `protocolVersion`; returns its id (the initialize response read to its end). */
async function initialize(gw: TestGateway, protocolVersion: string): Promise<Response> {
  return fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${gw.token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'sessions-test', version: '1' } },
    }),
  });
}

async function openSession(gw: TestGateway, protocolVersion: string): Promise<string> {
  const res = await initialize(gw, protocolVersion);
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id');
  expect(id).toBeTypeOf('string');
  return id as string;
}

describe('a lost stream resumed with Last-Event-ID', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('gets the tool result it missed while it was away', async () => {
    // 2025-11-25: the version whose clients take the empty priming event that carries the stream's first id.
    const version = '2025-11-25';
    const session = await openSession(gw, version);
    const headers = {
      ...MCP_HEADERS,
      authorization: `Bearer ${gw.token}`,
      'mcp-session-id': session,
      'mcp-protocol-version': version,
    };
    const initialized = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);

    // The tool call's stream: read up to its first event id, then the client loses it.
    const dropped = new AbortController();
    const call = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers,
      signal: dropped.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'ask_human', arguments: { question: 'Resume me?', answer_format: 'confirm', timeout: 120 } },
      }),
    });
    expect(call.status).toBe(200);
    let lastEventId: string | null = null;
    await readEvents(call.body as ReadableStream<Uint8Array>, (e) => {
      lastEventId = e.id;
      return e.id !== null;
    });
    dropped.abort();
    expect(lastEventId).toBeTypeOf('string');

    // The person answers while the client is away.
    const http = api(gw.url, gw.token);
    let question: string | undefined;
    await until(async () => {
      const items = (await http.get('/api/interactions')).json['items'] as Array<{ id: string; question: string }>;
      question = items.find((q) => q.question === 'Resume me?')?.id;
      return question !== undefined;
    }, 'the question to be asked');
    expect((await http.post(`/api/interactions/${question}/answer`, { answer: true })).status).toBe(200);

    // Back with Last-Event-ID: the stream replays what came after that event, the tool call's result among it.
    const resumed = await fetch(`${gw.url}/mcp`, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        authorization: `Bearer ${gw.token}`,
        'mcp-session-id': session,
        'mcp-protocol-version': version,
        'last-event-id': lastEventId as unknown as string,
      },
    });
    expect(resumed.status).toBe(200);
    let result: Record<string, unknown> | undefined;
    await readEvents(resumed.body as ReadableStream<Uint8Array>, (e) => {
      if (e.data === '') return false;
      const message = JSON.parse(e.data) as { id?: number; result?: Record<string, unknown> };
      if (message.id !== 7) return false;
      result = message.result;
      return true;
    });
    expect(result?.['structuredContent']).toMatchObject({ answer: true, surface: 'api' });
    expect(result?.['isError']).not.toBe(true);
  });
});

describe('the session cap', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('holds 1000 sessions; the next initialize is 429 with Retry-After until one ends', async () => {
    const sessions: string[] = [];
    // Ten at a time: a thousand initializes, a few seconds' work even on a loaded host.
    for (let batch = 0; batch < 100; batch++) {
      sessions.push(...(await Promise.all(Array.from({ length: 10 }, () => openSession(gw, '2025-06-18')))));
    }
    expect(new Set(sessions).size).toBe(1000);

    const refused = await initialize(gw, '2025-06-18');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body['error']).toBe('rate_limited');
    expect(body['message']).toMatch(/1000 MCP sessions/);

    // One session ends (DELETE): a new one opens.
    const ended = await fetch(`${gw.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${gw.token}`, 'mcp-session-id': sessions[0] as string },
    });
    expect(ended.status).toBe(200);
    await ended.text();
    await openSession(gw, '2025-06-18');
    expect((await initialize(gw, '2025-06-18')).status).toBe(429);
  }, 120_000);
});
