import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AskgateClient, ElicitationRefusedError, elicitThroughAsk } from 'askgate-sdk';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

/**
 * `elicitThroughAsk` as a program holding its own MCP client uses it: the client's elicitation handler, so a
 * server's elicitInput reaches a person in the inbox. Answered in the inbox, `askgate/reply_to` is null.
 */

let gw: TestGateway;
let http: Api;
let server: McpServer;
beforeAll(async () => {
  gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
  http = api(gw.url, gw.token);
  server = new McpServer({ name: 'asking-server', version: '1.0.0' });
  const askgate = new AskgateClient({ url: gw.url, token: gw.token });
  const client = new Client(
    { name: 'program', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => elicitThroughAsk(askgate, request.params));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterAll(async () => {
  await server?.close();
  await gw?.close();
});

it('form mode: a form ask on the requested schema, accepted with the typed content', async () => {
  const result = server.server.elicitInput({
    message: 'How many seats?',
    requestedSchema: { type: 'object', properties: { seats: { type: 'integer', minimum: 1 } }, required: ['seats'] },
  });
  const form = await waitForFormat('form');
  expect(form['schema']).toEqual({
    type: 'object',
    properties: { seats: { type: 'integer', minimum: 1 } },
    required: ['seats'],
  });
  expect((await http.post(`/api/interactions/${form['id']}/answer`, { answer: { seats: 3 } })).status).toBe(200);
  expect(await result).toEqual({ action: 'accept', content: { seats: 3 }, _meta: { 'askgate/reply_to': null } });
  // The Decline question beside it was withdrawn.
  expect((await http.get('/api/interactions?status=pending')).json['items']).toEqual([]);
});

it('URL mode: an external question showing the URL, accepted without content once confirmed', async () => {
  const result = server.server.elicitInput({
    mode: 'url',
    message: 'Connect your calendar',
    url: 'https://calendar.example/connect?state=abc',
    elicitationId: 'el-1',
  });
  const external = await waitForFormat('external');
  expect(external['question']).toContain('https://calendar.example/connect?state=abc');
  expect((await http.post(`/api/interactions/${external['id']}/answer`, { answer: { confirmed: true } })).status).toBe(
    200,
  );
  expect(await result).toEqual({ action: 'accept', _meta: { 'askgate/reply_to': null } });
});

it('refuses a property outside the MCP primitives by name, before anything is asked', async () => {
  const askgate = new AskgateClient({ url: gw.url, token: gw.token });
  await expect(
    elicitThroughAsk(askgate, {
      message: 'Where?',
      requestedSchema: { type: 'object', properties: { at: { type: 'object' } as never } },
    }),
  ).rejects.toThrow(ElicitationRefusedError);
  expect((await http.get('/api/interactions?status=pending')).json['items']).toEqual([]);
});

/** The pending question of `format` (the Decline question beside it is a select). */
async function waitForFormat(format: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const items = (await http.get('/api/interactions?status=pending')).json['items'] as Array<Record<string, unknown>>;
    const found = items.find((q) => q['answer_format'] === format);
    if (found !== undefined && items.length === 2) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending ${format} question beside its Decline question`);
}
