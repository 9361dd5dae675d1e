import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { eventually, httpClient, pendingOne, stdioClient } from './harness.js';

/**
 * askgate's MCP server through the SDK's own Client, on both transports: `ask_human` blocks until a person answers
 * in the inbox (a real Chromium), sends progress while it waits, and returns the structured result; a timeout, a
 * refusal and a client that goes away each end as the contract says.
 */

let gw: TestGateway;
let http: Api;
let browser: Browser;
beforeAll(async () => {
  // Progress every second on both transports (stdio: --progress-seconds below), so two arrive within a test.
  gw = await startTestGateway({ ASKGATE_MCP_PROGRESS_SECONDS: '1' });
  http = api(gw.url, gw.token);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** A person clicking `button` on the question's card in the inbox. */
async function clickInInbox(id: string, button: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(`${gw.url}/inbox#token=${encodeURIComponent(gw.token)}`);
    await page.locator(`li.card[data-id="${id}"]`).getByRole('button', { name: button }).click();
    await page.locator(`li.card[data-id="${id}"]`).waitFor({ state: 'detached' });
  } finally {
    await page.close();
  }
}

const transports: Array<[string, () => Promise<Client>]> = [
  ['stdio', () => stdioClient(gw, ['--progress-seconds', '1'])],
  ['Streamable HTTP', () => httpClient(gw)],
];

describe.each(transports)('over %s', (_name, connect) => {
  it('lists ask_human with the published input schema and an output schema', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'ask_human');
      expect(tool?.description).toMatch(/answer_format/);
      expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(
        [
          'action',
          'answer_format',
          'approvers',
          'decisions',
          'channel',
          'choices',
          'deliver',
          'media',
          'question',
          'quorum',
          'recipient',
          'schema',
          'timeout',
        ].sort(),
      );
      expect(tool?.inputSchema.required).toEqual(['question', 'answer_format']);
      expect(Object.keys(tool?.outputSchema?.properties ?? {}).sort()).toEqual(
        ['answer', 'answered_by', 'params', 'reply_to', 'surface'].sort(),
      );
    } finally {
      await client.close();
    }
  });

  it('blocks until the question is answered in the inbox, sending progress meanwhile, and returns the structured result', async () => {
    const client = await connect();
    try {
      const progress: number[] = [];
      const call = client.callTool(
        { name: 'ask_human', arguments: { question: 'Ship the release?', answer_format: 'confirm', timeout: 60 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 60_000 },
      );
      const question = await pendingOne(gw);
      expect(question).toMatchObject({ question: 'Ship the release?', answer_format: 'confirm' });
      // Progress while it waits, on either transport: two notifications before the person answers.
      await eventually(() => progress.length >= 2, 'two progress notifications');
      const beforeAnswer = progress.length;
      await clickInInbox(question['id'] as string, 'Yes');
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ answer: true, reply_to: null, params: null, surface: 'inbox' });
      expect(typeof result.structuredContent?.['answered_by']).toBe('string');
      expect(beforeAnswer).toBeGreaterThanOrEqual(2);
      // Progress values only grow.
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    } finally {
      await client.close();
    }
  });

  it('asks a review and returns the decision, with the edited args, as the answer', async () => {
    const client = await connect();
    try {
      const action = { name: 'deploy', args: { service: 'api', replicas: 3 }, description: 'Roll out api.' };
      const schema = {
        type: 'object',
        required: ['service', 'replicas'],
        properties: { service: { type: 'string' }, replicas: { type: 'integer', minimum: 1, maximum: 10 } },
      };
      const call = client.callTool(
        { name: 'ask_human', arguments: { question: 'Deploy?', answer_format: 'review', action, schema, timeout: 60 } },
        undefined,
        { timeout: 60_000 },
      );
      const question = await pendingOne(gw);
      expect(question).toMatchObject({ answer_format: 'review', action, decisions: ['approve', 'edit', 'reject'] });
      const id = question['id'] as string;
      const refused = await http.post(`/api/interactions/${id}/answer`, {
        answer: { decision: 'edit', args: { service: 'api', replicas: 30 } },
      });
      expect(refused.json).toMatchObject({ error: 'invalid_answer', field: 'args.replicas' });
      const edited = { decision: 'edit', args: { service: 'api', replicas: 2 } };
      expect((await http.post(`/api/interactions/${id}/answer`, { answer: edited })).status).toBe(200);
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ answer: edited, surface: 'api' });
      const bad = (await client.callTool({
        name: 'ask_human',
        arguments: { question: 'Deploy?', answer_format: 'review', action: { name: '', args: {} } },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect((bad.content[0] as { text: string }).text).toMatch(/action\.name/);
      expect((await http.get('/api/interactions?status=pending')).json['items']).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('is a tool error saying so when nobody answers in time', async () => {
    const client = await connect();
    try {
      const result = (await client.callTool({
        name: 'ask_human',
        arguments: { question: 'Anyone there?', answer_format: 'text', timeout: 1 },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/timeout: nobody answered/);
    } finally {
      await client.close();
    }
  });

  it('refuses a bad form schema naming the property, and asks nothing', async () => {
    const client = await connect();
    try {
      const result = (await client.callTool({
        name: 'ask_human',
        arguments: {
          question: 'Book?',
          answer_format: 'form',
          schema: { type: 'object', properties: { seats: { type: 'integer', minimum: 'one' } } },
        },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/schema/);
      const nested = (await client.callTool({
        name: 'ask_human',
        arguments: {
          question: 'Ship to?',
          answer_format: 'form',
          channel: 'telegram',
          recipient: '42',
          schema: { type: 'object', properties: { address: { type: 'object' } } },
        },
      })) as CallToolResult;
      expect(nested.isError).toBe(true);
      expect((nested.content[0] as { text: string }).text).toMatch(
        /property "address" cannot be delivered on a channel.*at schema\.properties\.address/,
      );
      const unknownChannel = (await client.callTool({
        name: 'ask_human',
        arguments: { question: 'Ship?', answer_format: 'confirm', channel: 'slack', recipient: 'U1' },
      })) as CallToolResult;
      expect(unknownChannel.isError).toBe(true);
      expect((unknownChannel.content[0] as { text: string }).text).toMatch(
        /^refused: channel "slack" is not registered.*\(field channel\); nothing was asked\.$/,
      );
      const choices = (await client.callTool({
        name: 'ask_human',
        arguments: { question: 'Pick', answer_format: 'text', choices: ['a'] },
      })) as CallToolResult;
      expect(choices.isError).toBe(true);
      expect(JSON.stringify(choices.content)).toMatch(/choices/);
      const pending = (await http.get('/api/interactions?status=pending')).json['items'] as unknown[];
      expect(pending).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('a client that goes away while the person is answering', () => {
  it('cancels the question over stdio, and the late answer is told 410', async () => {
    const client = await stdioClient(gw);
    void client
      .callTool({ name: 'ask_human', arguments: { question: 'Still there?', answer_format: 'confirm', timeout: 60 } })
      .catch(() => undefined);
    const question = await pendingOne(gw);
    await client.close();
    const id = question['id'] as string;
    await eventually(
      async () => (await http.get(`/api/interactions/${id}`)).json['status'] === 'cancelled',
      'the question to be cancelled',
    );
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(410);
  });

  it('cancels the question when the HTTP session is closed', async () => {
    const client = await httpClient(gw);
    void client
      .callTool({ name: 'ask_human', arguments: { question: 'Still here?', answer_format: 'confirm', timeout: 60 } })
      .catch(() => undefined);
    const question = await pendingOne(gw);
    await (client.transport as { terminateSession(): Promise<void> } | undefined)?.terminateSession();
    await client.close();
    const id = question['id'] as string;
    await eventually(
      async () => (await http.get(`/api/interactions/${id}`)).json['status'] === 'cancelled',
      'the question to be cancelled',
    );
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(410);
  });
});

describe('the /mcp door', () => {
  it('is 401 without a bearer token and with an unknown one', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${gw.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Record<string, unknown>)['error']).toBe('unauthorized');
    const unknown = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body: JSON.stringify(init),
    });
    expect(unknown.status).toBe(401);
  });

  it('keeps a session to the token that opened it, and needs the write and answer scopes', async () => {
    const tokens = {
      'tok-ada-0123456789': { identity: 'ada', scopes: ['read', 'write', 'answer'] },
      'tok-bob-0123456789': { identity: 'bob', scopes: ['read', 'write', 'answer'] },
      'tok-eve-0123456789': { identity: 'eve', scopes: ['read', 'write'] },
    };
    const multi = await startTestGateway({ ASKGATE_TOKENS: JSON.stringify(tokens) });
    try {
      const client = await httpClient(multi, 'tok-ada-0123456789');
      const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId as string;
      const post = (token: string, session?: string) =>
        fetch(`${multi.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...(session === undefined ? {} : { 'mcp-session-id': session }),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
      expect((await post('tok-bob-0123456789', sessionId)).status).toBe(404);
      expect((await post('tok-eve-0123456789', sessionId)).status).toBe(403);
      expect((await post('tok-bob-0123456789')).status).toBe(400);
      // The session's own token still works, and the question it asks is its identity's.
      const call = client.callTool({ name: 'ask_human', arguments: { question: 'Mine?', answer_format: 'text' } });
      const question = await pendingOne(multi);
      expect(question['asked_by']).toBe('ada');
      await api(multi.url, 'tok-ada-0123456789').post(`/api/interactions/${question['id']}/answer`, { answer: 'yes' });
      expect(((await call) as CallToolResult).structuredContent).toMatchObject({ answer: 'yes', answered_by: 'ada' });
      await client.close();
    } finally {
      await multi.close();
    }
  });

  it('refuses a request on an open session from a token the gateway does not know', async () => {
    const client = await httpClient(gw);
    try {
      const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId;
      expect(sessionId).toBeTypeOf('string');
      const res = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${gw.token}x`,
          'mcp-session-id': sessionId as string,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
    } finally {
      await client.close();
    }
  });
});
