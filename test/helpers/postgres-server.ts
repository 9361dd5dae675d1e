import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitedEarly, onFreePort } from './redis-server.js';

/** A throwaway PostgreSQL server the tests can reach, kill and restart, like redis-server.ts's. */
export interface PostgresServerHandle {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback only). */
  url: string;
  port: number;
  /** Stops the server (fast shutdown) and removes its data directory. */
  stop(): Promise<void>;
  /**
   * Stops it and starts it again on the same port and data directory, resolving once it accepts connections. With
   * `crash`, the postmaster and its backends are SIGKILLed (what survives is what was committed: recovery replays
   * the WAL); the new one starts `downMs` later.
   */
  restart(options?: { crash?: boolean; downMs?: number }): Promise<void>;
  /** Stops the server and keeps its data, so `up` brings it back: a checkpointer that is away. */
  down(options?: { crash?: boolean }): Promise<void>;
  /** Starts the server `down` stopped; resolves once it accepts connections. */
  up(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

/** Every server this module started, killed with its backends when the test process exits however it exits. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

/**
 * The directory holding initdb, postgres and pg_isready: `POSTGRES_BIN_DIR`, else the newest
 * /usr/lib/postgresql/<major>/bin (Debian's layout), else `pg_config --bindir`.
 */
export function postgresBinDir(): string | null {
  const fromEnv = process.env['POSTGRES_BIN_DIR'];
  if (fromEnv !== undefined && fromEnv !== '') return existsSync(join(fromEnv, 'initdb')) ? fromEnv : null;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(debian, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0] !== undefined) return join(debian, majors[0], 'bin');
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    return existsSync(join(dir, 'initdb')) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * initdb refuses to run as root, and so does postgres: as root, both run as the `postgres` system user (which
 * Debian's postgresql package creates), owning the data directory; as anyone else, as that user.
 */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * Starts a real PostgreSQL on a free loopback port with a fresh cluster in a temporary directory and resolves once it
 * accepts connections. fsync is off: the tests kill the server process, never the machine, and a killed server's
 * committed transactions are in the WAL the operating system already holds.
 */
export async function startPostgresServer(): Promise<PostgresServerHandle> {
  const bin = postgresBinDir();
  if (bin === null) {
    throw new Error(
      'PostgreSQL was not found: install it with `apt-get install -y postgresql` (or set POSTGRES_BIN_DIR)',
    );
  }
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'askgate-postgres-'));
  if (user !== null) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
    { stdio: 'pipe', ...(user ?? {}) },
  );
  const started = await onFreePort((p) => launch(bin, data, dir, p, user));
  const port = started.port;
  let child: ChildProcess | null = started.child;

  const halt = async (crash: boolean): Promise<void> => {
    const current = child;
    child = null;
    if (current !== null) await terminate(current, crash);
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await halt(false);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart(options = {}) {
      await halt(options.crash === true);
      if (options.downMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.downMs));
      child = await launch(bin, data, dir, port, user);
    },
    down: (options = {}) => halt(options.crash === true),
    async up() {
      if (child === null) child = await launch(bin, data, dir, port, user);
    },
  };
}

async function launch(
  bin: string,
  data: string,
  socketDir: string,
  port: number,
  user: { uid: number; gid: number } | null,
): Promise<ChildProcess> {
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    socketDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
    '-c',
    'shared_buffers=32MB',
  ];
  // Its own process group, so a crash kills the backends with the postmaster and a restart finds no survivor
  // holding the shared memory.
  const child = spawn(join(bin, 'postgres'), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    ...(user ?? {}),
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start postgres: ${error.message}`)));
    child.once('exit', (code) =>
      reject(new ExitedEarly(`postgres exited with code ${code} before it was ready: ${stderr.trim()}`)),
    );
  });
  exited.catch(() => {}); // Observed below; after a successful start a later exit is expected (stop).
  await Promise.race([waitForReady(bin, port, data), exited]);
  return child;
}

/**
 * Until the server on `port` accepts connections and is the one started on `data` (its data_directory): a server
 * another test run started on the same port is not it.
 */
async function waitForReady(bin: string, port: number, data: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const address = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
  while (Date.now() < deadline) {
    try {
      execFileSync(join(bin, 'pg_isready'), [...address, '-t', '1'], { stdio: 'ignore' });
      const served = execFileSync(join(bin, 'psql'), [...address, '-d', 'postgres', '-Atc', 'SHOW data_directory'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      if (served.toString().trim() === data) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`postgres on port ${port} did not accept connections within ${READY_TIMEOUT_MS} ms`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Fast shutdown (SIGINT: roll back open transactions, then exit), or SIGKILL to the whole group for a crash. */
async function terminate(child: ChildProcess, crash: boolean): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroup(child, crash ? 'SIGKILL' : 'SIGINT');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  // A backend still holding the shared memory makes the next start refuse: wait until the whole group is gone.
  const pid = child.pid;
  if (pid === undefined) return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && groupAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
