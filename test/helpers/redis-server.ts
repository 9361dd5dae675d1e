import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChild } from './child.js';

/** A redis-server the tests can reach, stop and restart. */
export interface RedisServerHandle {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then waits for the process to exit). */
  stop(): Promise<void>;
  /**
   * Stops it, then starts a fresh one on the same port, resolving once it answers PING. With `crash`, the server is
   * SIGKILLed instead of asked to stop (so only what the append-only file already holds survives), and the new one
   * starts `downMs` later (default at once), so a test can hold Redis away for a while.
   */
  restart(options?: { crash?: boolean; downMs?: number }): Promise<void>;
  /** Stops the server and keeps its files, so `up` brings it back (with `aof`, with its data): a store that is away. */
  down(): Promise<void>;
  /** Starts the server `down` stopped, on the same port; resolves once it answers PING. */
  up(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** Every child this module started, killed when the test process exits however it exits. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts a real `redis-server` on a free loopback port, with persistence off and its working files in a temporary
 * directory, and resolves once it answers PING. With `REDIS_URL` set, the tests use that server instead
 * (`stop` leaves it running and `restart` throws: an external server is not ours to stop) — unless `own` is set,
 * which a test that stops or flushes its server passes to always get a server of its own. With `aof`, the server
 * keeps an append-only file fsynced on every write (`appendfsync always`), so a restart, even after SIGKILL, comes
 * back with every acknowledged write.
 * The binary is `REDIS_SERVER_BIN` or `redis-server` on the PATH.
 */
export async function startRedisServer(options: { own?: boolean; aof?: boolean } = {}): Promise<RedisServerHandle> {
  const external = process.env['REDIS_URL'];
  if (external !== undefined && external !== '' && options.own !== true) {
    const port = Number(new URL(external).port || 6379);
    return {
      url: external,
      port,
      stop: async () => undefined,
      restart: notOurs,
      down: notOurs,
      up: notOurs,
    };
  }

  const dir = mkdtempSync(join(tmpdir(), 'askgate-redis-'));
  const aof = options.aof === true;
  const started = await onFreePort((p) => launch(p, dir, aof));
  const port = started.port;
  let child: ChildProcess | null = started.child;

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    const running = child;
    child = null;
    if (running !== null) await terminate(running, signal);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    // restart() also brings back a server that stop() ended, so a test can take Redis down and up again.
    async restart(restartOptions = {}) {
      await stop(restartOptions.crash === true ? 'SIGKILL' : 'SIGTERM');
      if (restartOptions.downMs !== undefined) await new Promise((r) => setTimeout(r, restartOptions.downMs));
      child = await launch(port, dir, aof);
    },
    down: () => stop(),
    async up() {
      if (child === null) child = await launch(port, dir, aof);
    },
  };
}

async function notOurs(): Promise<void> {
  throw new Error(
    'this test stops redis-server, which it cannot do to the server named by REDIS_URL; pass { own: true }',
  );
}

async function launch(port: number, dir: string, aof: boolean): Promise<ChildProcess> {
  mkdirSync(dir, { recursive: true });
  const bin = process.env['REDIS_SERVER_BIN'] ?? 'redis-server';
  const persistence = aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir];
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`cannot start ${bin}: ${error.message}; install redis-server or set REDIS_SERVER_BIN`)),
    );
    child.once('exit', (code) =>
      reject(new ExitedEarly(`${bin} exited with code ${code} before answering PING: ${stderr.trim()}`)),
    );
  });
  exited.catch(() => {}); // Observed below; after a successful start a later exit is expected (stop).
  await Promise.race([waitForPong(port, child.pid), exited]);
  return child;
}

/** A server that exited before it was ready: on a fresh start, most likely its port was taken meanwhile. */
export class ExitedEarly extends Error {}

/**
 * Starts a server on a port from freePort, and on another when it exits before it is ready. A port is free when
 * freePort hands it out, not when the server binds it a moment later: another test run on the machine (a second
 * checkout's `npm test`), or any outgoing connection, can take it in between. Five ports at most.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<{ port: number; child: T }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, child: await start(port) };
    } catch (error) {
      if (!(error instanceof ExitedEarly) || attempt === 5) throw error;
    }
  }
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  children.delete(child);
  await stopChild(child, signal);
}

/**
 * Polls with a raw PING until the server answers +PONG — and, given the process id of the server just started, until
 * the server answering is that process (INFO's process_id): one another test run started on the same port is not it.
 */
export async function waitForPong(port: number, pid?: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await pingOnce(port, pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
}

function pingOnce(port: number, pid?: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(pid === undefined ? 'PING\r\n' : 'PING\r\nINFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.includes('\r\n')) return;
      if (!reply.startsWith('+PONG') || pid === undefined) return done(reply.startsWith('+PONG'));
      const id = /\r\nprocess_id:(\d+)\r\n/.exec(reply);
      if (id !== null) done(Number(id[1]) === pid);
    });
  });
}

/** A port the OS just handed out and released; redis-server binds it right after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not pick a free port'));
      });
    });
  });
}
