import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { stopChild } from '../helpers/child.js';
import type { TestGateway } from '../helpers/gateway.js';
import { CLI } from './harness.js';

/**
 * The SDK's own Client in front of `askgate mcp-proxy -- node eliciting-server.mjs`, over a stdio transport of the
 * test's own that records the exact bytes the client wrote and read (the server fixture records its side), so a
 * test can hold the proxy to relaying every other message unchanged.
 */

const FIXTURE = join(process.cwd(), 'test/mcp/fixtures/eliciting-server.mjs');

class RecordingStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: Buffer[] = [];
  readonly received: Buffer[] = [];
  #pending = Buffer.alloc(0);

  constructor(readonly child: ChildProcess) {}

  async start(): Promise<void> {
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.received.push(chunk);
      this.#pending = Buffer.concat([this.#pending, chunk]);
      let at = this.#pending.indexOf(0x0a);
      while (at !== -1) {
        const line = this.#pending.subarray(0, at).toString('utf8');
        this.#pending = this.#pending.subarray(at + 1);
        this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        at = this.#pending.indexOf(0x0a);
      }
    });
    this.child.once('exit', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
    this.sent.push(bytes);
    this.child.stdin?.write(bytes);
  }

  /** As the SDK's stdio client closes: end the server's stdin, give it a moment to exit, then stop it. */
  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    this.child.stdin?.end();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
    await stopChild(this.child, 'SIGTERM', 5_000);
  }
}

export interface ProxySession {
  client: Client;
  /** Calls the fixture's `elicit` tool and returns what the server's elicitInput resolved with (or its error). */
  elicit(params: Record<string, unknown>): Promise<{ isError: boolean; value: Record<string, unknown> }>;
  /** The lines of each pipe: what the client wrote and read, what the server read and wrote. */
  pipes(): { clientSent: string[]; clientReceived: string[]; serverIn: string[]; serverOut: string[] };
  close(): Promise<void>;
}

const linesOf = (bytes: Buffer): string[] =>
  bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');

/** Starts the proxy (with `proxyArgs`, e.g. `--channel telegram --recipient 42`) against `gw` and connects. */
export async function startProxySession(
  gw: TestGateway,
  proxyArgs: string[],
  capabilities: Record<string, unknown> = {},
): Promise<ProxySession> {
  const dir = mkdtempSync(join(tmpdir(), 'askgate-mcp-proxy-'));
  const child = spawn(process.execPath, [CLI, 'mcp-proxy', ...proxyArgs, '--', process.execPath, FIXTURE], {
    env: { PATH: process.env['PATH'] ?? '', ASKGATE_URL: gw.url, ASKGATE_TOKEN: gw.token, RECORD_DIR: dir },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const transport = new RecordingStdioTransport(child);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  const read = (name: string): Buffer => {
    try {
      return readFileSync(join(dir, name));
    } catch {
      return Buffer.alloc(0);
    }
  };
  return {
    client,
    async elicit(params) {
      const result = (await client.callTool({ name: 'elicit', arguments: { params } }, undefined, {
        timeout: 120_000,
      })) as CallToolResult;
      const text = (result.content[0] as { text: string }).text;
      return { isError: result.isError === true, value: JSON.parse(text) as Record<string, unknown> };
    },
    pipes: () => ({
      clientSent: linesOf(Buffer.concat(transport.sent)),
      clientReceived: linesOf(Buffer.concat(transport.received)),
      serverIn: linesOf(read('server-in.log')),
      serverOut: linesOf(read('server-out.log')),
    }),
    close: () => transport.close(),
  };
}
