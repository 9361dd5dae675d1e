import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/** The askgate command as users run it: the built dist/. */
export const CLI = join(process.cwd(), 'dist/src/cli/main.js');

/** The SDK's own Client, connected over stdio to `askgate mcp` (a real process) against `gw`. */
export async function stdioClient(gw: TestGateway, args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env['PATH'] ?? '', ASKGATE_URL: gw.url, ASKGATE_TOKEN: gw.token },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The SDK's own Client over Streamable HTTP to the gateway's `/mcp`. */
export async function httpClient(gw: TestGateway, token = gw.token): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Resolves with the one pending interaction once it exists (the tool call that asked it is still blocked). */
export async function pendingOne(gw: TestGateway): Promise<Record<string, unknown>> {
  const http = api(gw.url, gw.token);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const items = (await http.get('/api/interactions?status=pending')).json['items'] as Array<Record<string, unknown>>;
    if (items.length === 1) return items[0] as Record<string, unknown>;
    if (items.length > 1) throw new Error(`expected one pending question, found ${items.length}`);
    if (Date.now() > deadline) throw new Error('no question was asked');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls until `check` holds (or fails the test after 10 s). */
export async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
