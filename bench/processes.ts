import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from '../test/helpers/child.js';
import { startRedisServer, type RedisServerHandle } from '../test/helpers/redis-server.js';

/**
 * The processes a benchmark starts: its own redis-server (the test helper, test/helpers/redis-server.ts, which tsc
 * compiles into dist/test/helpers/ because this file imports it), the built gateway, the baseline server.
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

export type RedisHandle = RedisServerHandle;

/**
 * A fresh redis-server on a free loopback port, persistence off; `REDIS_SERVER_BIN` overrides the binary. Always a
 * server of the bench's own (`own: true`): benchmarks flush their server, so a REDIS_URL in the environment must never
 * point one at somebody else's.
 */
export function startRedis(): Promise<RedisHandle> {
  return startRedisServer({ own: true });
}

export interface NodeProcess {
  /** The first capture group of the ready line (a URL), or '' when the line has none. */
  readonly url: string;
  /** The process id (for CPU accounting, process-cpu.ts). */
  readonly pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node script` and resolves once its output matches `ready`. */
export async function spawnNode(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  what: string,
): Promise<NodeProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing; run \`npm run build\` first`);
  const child = track(
    // BENCH_GATEWAY_NODE_ARGS reaches the gateway only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it
    // under a benchmark's load (the profile is written when the gateway exits on the benchmark's SIGTERM).
    spawn(process.execPath, [...gatewayNodeArgs(script), script], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 60 s:\n${out}`)), 60_000);
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
  return { url: match[1] ?? '', pid: child.pid ?? 0, output: () => out, stop: () => stopChild(child) };
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
  return spawnNode(
    BASELINE_SERVER,
    { REDIS_URL: redisUrl },
    /baseline listening on (http:\/\/\S+)/,
    'the baseline server',
  );
}

function gatewayNodeArgs(script: string): string[] {
  const args = process.env['BENCH_GATEWAY_NODE_ARGS'];
  return script === GATEWAY_MAIN && args !== undefined ? args.split(' ').filter((a) => a !== '') : [];
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
