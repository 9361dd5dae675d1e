import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** Shared by the confirmation tests: tokens, a preset body, a loopback proxy, the CLI. */

export const ADMIN = 'confirm-admin-token-0123456789';
export const AGENT = 'confirm-agent-token-0123456789';
export const BRIDGE = 'confirm-bridge-secret-0123456789';
export const TOKENS = JSON.stringify({
  [ADMIN]: { identity: 'ops', scopes: ['read', 'write', 'answer', 'admin'] },
  [AGENT]: { identity: 'agent', scopes: ['read', 'write', 'answer'] },
});

export function depositPreset(reference: string): Record<string, unknown> {
  return {
    ask: { question: `Pay the deposit for ${reference}` },
    confirmation: {
      provider: 'stripe_checkout',
      reference,
      return_url: 'https://shop.example/thanks',
      line_items: [
        { price_data: { currency: 'eur', product_data: { name: 'Deposit' }, unit_amount: 5000 }, quantity: 1 },
      ],
    },
  };
}

/**
 * A loopback proxy in front of the gateway, whose origin is INTERACTIONS_PUBLIC_BASE_URL. It records the status of
 * every callback POST that passes it (the bridge answers in process, so it should see none from it).
 */
export interface FrontProxy {
  readonly url: string;
  target: string | null;
  callbackPosts: number[];
  close(): Promise<void>;
}

export async function startProxy(): Promise<FrontProxy> {
  const proxy: FrontProxy = {
    url: '',
    target: null,
    callbackPosts: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const callback = req.method === 'POST' && (req.url ?? '').startsWith('/api/interactions/callback/');
    const target = new URL(req.url ?? '/', proxy.target ?? 'http://127.0.0.1:9');
    const upstream = request(target, { method: req.method, headers: req.headers }, (up) => {
      if (callback) proxy.callbackPosts.push(up.statusCode ?? 0);
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end('bad gateway'));
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

const CLI = join(process.cwd(), 'dist/src/cli/main.js');

export function runCli(
  url: string,
  token: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ASKGATE_URL: url, ASKGATE_TOKEN: token, NO_COLOR: '1' };
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

export async function until<T>(check: () => Promise<T | null> | T | null, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port the OS just handed out and released: the gateway binds it, so its public base URL is known in advance. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
