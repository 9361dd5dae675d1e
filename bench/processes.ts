import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './harness.js';

/**
 * The processes a benchmark starts: its own redis-server, the built gateway, the baseline server. bench/ does not
 * import test/ (test/ is not compiled into dist/), so this is the bench's own, smaller take on the test helpers.
 * Everything binds 127.0.0.1 and every child is killed when the bench process exits, however it exits.
 */

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** The repository root, found from this file whether it runs from bench/ (vitest) or dist/bench/ (npm run bench). */
export const ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the askgate repository root above bench/');
    dir = up;
  }
  return dir;
})();

export const GATEWAY_MAIN = join(ROOT, 'dist/src/main.js');
export const BASELINE_SERVER = join(ROOT, 'dist/bench/baseline-server.js');

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}

/** A fresh redis-server on a free loopback port, persistence off; `REDIS_SERVER_BIN` overrides the binary. */
export async function startRedis(): Promise<RedisHandle> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'askgate-bench-redis-'));
  const bin = process.env['REDIS_SERVER_BIN'] ?? 'redis-server';
  const child = track(spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (e) => reject(new Error(`cannot start ${bin}: ${e.message}; install redis-server or set REDIS_SERVER_BIN`)));
    child.once('exit', (code) => reject(new Error(`${bin} exited with ${code} before answering PING`)));
  });
  failed.catch(() => undefined); // observed by the race below; a later exit is our own stop
  await Promise.race([waitForPong(port), failed]);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface NodeProcess {
  /** The first capture group of the ready line (a URL), or '' when the line has none. */
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node script` and resolves once its output matches `ready`. */
export async function spawnNode(script: string, env: Record<string, string>, ready: RegExp, what: string): Promise<NodeProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing; run \`npm run build\` first`);
  const child = track(spawn(process.execPath, [script], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 20 s:\n${out}`)), 20_000);
    const check = (): void => {
      const m = ready.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      resolve(m);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${out}`));
    });
  });
  return { url: match[1] ?? '', output: () => out, stop: () => stopChild(child) };
}

/** A bearer token for the gateway under test (any 16+ characters). */
export const BENCH_TOKEN = 'askgate-bench-token-0123456789abcdef';

/** The whole gateway (`npm start`'s entry: HTTP doors and workers) as its own process on `redisUrl`. */
export function spawnGateway(redisUrl: string, extraEnv: Record<string, string> = {}): Promise<NodeProcess> {
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    REDIS_URL: redisUrl,
    ASKGATE_TOKENS: JSON.stringify({ [BENCH_TOKEN]: { identity: 'bench', scopes: ['read', 'write', 'answer'] } }),
    ...extraEnv,
  };
  return spawnNode(GATEWAY_MAIN, env, /askgate listening on (http:\/\/\S+)/, 'the askgate gateway');
}

/** bench/baseline-server.ts as its own process on `redisUrl`. */
export function spawnBaseline(redisUrl: string): Promise<NodeProcess> {
  return spawnNode(BASELINE_SERVER, { REDIS_URL: redisUrl }, /baseline listening on (http:\/\/\S+)/, 'the baseline server');
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function waitForPong(port: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      const done = (v: boolean): void => {
        socket.destroy();
        resolve(v);
      };
      socket.setTimeout(500, () => done(false));
      socket.once('error', () => done(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
    });
    if (ok) return;
    await sleep(25);
  }
  throw new Error(`redis-server on port ${port} did not answer PING in 10 s`);
}

/** A port the OS just handed out and released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
