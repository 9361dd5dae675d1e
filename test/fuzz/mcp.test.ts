import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { anyJson, edgyNumber, edgyString, expectWellRefused, fuzzParameters, fuzzTimeout } from './fuzz-helpers.js';

/**
 * Fuzzing `/mcp` (MCP over Streamable HTTP): random JSON-RPC bodies (random methods, ids and params, batches, and
 * `tools/call` of `ask_human` with random arguments), random headers (Accept, Content-Type, protocol version) and
 * session ids (a live one of this token, one of another token, random ones). Never a 5xx and the gateway alive
 * after each case. A 4xx body is either askgate's error (which names its field, as on every door) or the JSON-RPC
 * error object the MCP transport answers with (`{"jsonrpc": "2.0", "error": {"code", "message"}}`), which is the
 * protocol's own shape for a refused message.
 *
 * A case whose response stays open (a valid `ask_human` call waits for a person) is ended after 3 s: waiting is
 * what it should do, not a failure.
 */

const OTHER = 'fuzz-mcp-other-token-0123456789abcdef';
let gw: TestGateway;
let live: string;
let othersSession: string;

beforeAll(async () => {
  gw = await startTestGateway({
    ASKGATE_TOKENS: JSON.stringify({
      'fuzz-mcp-token-0123456789abcdef': { identity: 'agent', scopes: ['read', 'write', 'answer'] },
      [OTHER]: { identity: 'other', scopes: ['read', 'write', 'answer'] },
    }),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
  });
  live = await initialize('fuzz-mcp-token-0123456789abcdef');
  othersSession = await initialize(OTHER);
});
afterAll(async () => {
  await gw?.close();
});

const TOKEN = 'fuzz-mcp-token-0123456789abcdef';
const ACCEPT = 'application/json, text/event-stream';

async function initialize(token: string): Promise<string> {
  const res = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id');
  expect(id).toBeTypeOf('string');
  // The client's half of the handshake.
  const done = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${token}`,
      'mcp-session-id': id as string,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(done.status).toBeLessThan(300);
  await done.text();
  return id as string;
}

/** The status and the body (parsed as JSON, or the JSON of the first SSE `data:` line), or null when still open. */
async function post(
  headers: Record<string, string>,
  body: string,
  method: string,
): Promise<{ status: number; body: unknown; text: string } | null> {
  try {
    const res = await fetch(`${gw.url}/mcp`, {
      method,
      headers,
      ...(method === 'GET' || method === 'DELETE' ? {} : { body }),
      signal: AbortSignal.timeout(3_000),
    });
    const text = await res.text();
    const json = text.startsWith('{') || text.startsWith('[') ? text : /^data: (.*)$/m.exec(text)?.[1];
    let parsed: unknown = text;
    try {
      parsed = json === undefined ? text : (JSON.parse(json) as unknown);
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, text };
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return null;
    throw error;
  }
}

const isJsonRpcError = (body: unknown): boolean => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error === 'object' && typeof error.code === 'number' && typeof error.message === 'string';
};

const jsonRpcMessage = fc.oneof(
  anyJson,
  fc.record(
    {
      jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 8 }, { arbitrary: edgyString, weight: 1 }),
      id: fc.oneof(fc.nat(), edgyString, fc.constant(null), edgyNumber),
      method: fc.oneof(
        fc.constantFrom(
          'initialize',
          'tools/list',
          'tools/call',
          'ping',
          'resources/list',
          'prompts/list',
          'notifications/initialized',
          'notifications/cancelled',
          'logging/setLevel',
          'completion/complete',
        ),
        edgyString,
      ),
      params: fc.oneof(
        anyJson,
        fc.record({
          name: fc.oneof(fc.constant('ask_human'), edgyString),
          arguments: fc.oneof(
            anyJson,
            fc.dictionary(
              fc.constantFrom('question', 'answer_format', 'choices', 'timeout', 'schema', 'channel', 'recipient'),
              fc.oneof(edgyNumber, edgyString, anyJson),
              { maxKeys: 5 },
            ),
          ),
        }),
      ),
    },
    { requiredKeys: [] },
  ),
);

describe('/mcp', () => {
  it(
    'random JSON-RPC bodies, headers and session ids: never a 5xx; a 4xx is an askgate or a JSON-RPC error',
    async () => {
      // Weighted towards a live session of this token, so most cases reach the session's JSON-RPC handling.
      const sessionId = fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 1 },
        { arbitrary: fc.constant('live'), weight: 6 },
        { arbitrary: fc.constant(othersSession), weight: 1 },
        { arbitrary: edgyString.filter((s) => /^[\x21-\x7e]*$/.test(s)), weight: 1 },
      );
      const body = fc.oneof(
        { arbitrary: jsonRpcMessage.map((m) => JSON.stringify(m)), weight: 6 },
        { arbitrary: fc.array(jsonRpcMessage, { maxLength: 3 }).map((m) => JSON.stringify(m)), weight: 2 },
        { arbitrary: fc.string({ unit: 'binary' }), weight: 1 },
      );
      const headerValue = fc.oneof(
        fc.string({ unit: 'grapheme-ascii' }).map((s) => s.replace(/[\r\n]/g, '')),
        fc.constantFrom(ACCEPT, 'application/json', 'text/event-stream', '2025-06-18', '1999-01-01'),
      );
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(
          body,
          sessionId,
          fc.oneof(
            { arbitrary: fc.constant({}), weight: 3 },
            {
              arbitrary: fc.dictionary(
                fc.constantFrom('accept', 'content-type', 'mcp-protocol-version', 'last-event-id'),
                headerValue,
                { maxKeys: 3 },
              ),
              weight: 1,
            },
          ),
          fc.constantFrom('POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'DELETE'),
          fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
          async (text, pick, extra, method, withToken) => {
            const session = pick === 'live' ? live : pick;
            const headers: Record<string, string> = {
              'content-type': 'application/json',
              accept: ACCEPT,
              ...extra,
              ...(withToken ? { authorization: `Bearer ${TOKEN}` } : {}),
              ...(session === undefined ? {} : { 'mcp-session-id': session }),
            };
            const res = await post(headers, text, method);
            const status = res === null ? 'still open' : String(res.status);
            seen.set(status, (seen.get(status) ?? 0) + 1);
            const what = `${method} /mcp ${JSON.stringify(headers)} ${text.slice(0, 300)}`;
            if (res !== null) {
              expect(res.status, `${what} answered ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
              if (res.status >= 400 && !isJsonRpcError(res.body)) expectWellRefused(res.status, res.body, what);
            }
            // A DELETE ended the live session: open a new one for the cases after.
            if (method === 'DELETE' && session === live && withToken && res?.status === 200)
              live = await initialize(TOKEN);
            const health = await fetch(`${gw.url}/healthz`);
            expect(health.status).toBe(200);
            await health.text();
          },
        ),
        fuzzParameters('/mcp'),
      );
      // How deep the cases went (a 200 reached the JSON-RPC handler of a session), for the log.
      console.log(`fuzz /mcp statuses: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
    },
    // A case that waits for a person is ended at 3 s: more time than the other doors' 150 ms a case.
    fuzzTimeout() * 4,
  );
});
