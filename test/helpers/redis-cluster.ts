import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stopChild } from './child.js';
import { ExitedEarly, freePort, onFreePort, waitForPong } from './redis-server.js';

/**
 * A real Redis Cluster on loopback for the tests: `masters` redis-servers with `cluster-enabled yes` (and `replicas`
 * replicas of each), joined by `redis-cli --cluster create … --cluster-yes`, persistence off, working files in a
 * temporary directory. One per test file: a start takes a few seconds. The binaries are `REDIS_SERVER_BIN` /
 * `REDIS_CLI_BIN` or `redis-server` / `redis-cli` on the PATH (Debian: redis-server, redis-tools).
 */

export interface ClusterNode {
  port: number;
  /** `redis://127.0.0.1:<port>`: this one node (a plain client on it sees MOVED for other nodes' slots). */
  url: string;
  /** Whether its process is still running (false after `kill`). */
  alive: boolean;
}

export interface RedisClusterHandle {
  /** `redis+cluster://127.0.0.1:<port>,…`: every node as a seed, as askgate's REDIS_URL. */
  url: string;
  nodes: ClusterNode[];
  /** The node serving `key`'s slot as master now (asks a live node's CLUSTER SLOTS). */
  masterOf(key: string): Promise<ClusterNode>;
  /** The live replicas of `master`. */
  replicasOf(master: ClusterNode): Promise<ClusterNode[]>;
  /** SIGKILLs one node: no goodbye to the cluster, exactly like a machine that dies. */
  kill(node: ClusterNode): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` and every live replica's link to its master is up. */
  settled(): Promise<void>;
  /** Stops every node and removes the working files. */
  stop(): Promise<void>;
}

const SETTLE_TIMEOUT_MS = 60_000;

/** Every node this module started, killed when the test process exits however it exits. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function startRedisCluster(
  options: { masters?: number; replicas?: number } = {},
): Promise<RedisClusterHandle> {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'askgate-cluster-'));
  const processes = new Map<number, ChildProcess>();
  const nodes: ClusterNode[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const { port, child } = await onFreePort(async (p) => {
        const nodeDir = join(dir, String(p));
        mkdirSync(nodeDir, { recursive: true });
        return launchNode(p, await freePort(), nodeDir);
      });
      processes.set(port, child);
      nodes.push({ port, url: `redis://127.0.0.1:${port}`, alive: true });
    }
    await createCluster(nodes, replicas);
  } catch (error) {
    await Promise.all([...processes.values()].map((c) => terminate(c)));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const live = (): ClusterNode[] => nodes.filter((n) => n.alive);
  const slots = async (): Promise<Array<[number, number, ...Array<[string, number, ...unknown[]]>]>> =>
    withClient(live()[0] as ClusterNode, (c) => c.call('CLUSTER', 'SLOTS')) as never;
  const handle: RedisClusterHandle = {
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    async masterOf(key) {
      const slot = (await withClient(live()[0] as ClusterNode, (c) => c.cluster('KEYSLOT', key))) as number;
      const range = (await slots()).find(([from, to]) => slot >= from && slot <= to);
      const port = range?.[2]?.[1];
      const node = nodes.find((n) => n.port === port);
      if (node === undefined) throw new Error(`no master serves slot ${slot} of ${key}`);
      return node;
    },
    async replicasOf(master) {
      const range = (await slots()).find((r) => r[2]?.[1] === master.port);
      const ports = (range?.slice(3) ?? []).map((r) => (r as [string, number])[1]);
      return nodes.filter((n) => n.alive && ports.includes(n.port));
    },
    async kill(node) {
      const child = processes.get(node.port);
      node.alive = false;
      if (child !== undefined) await terminate(child, 'SIGKILL');
    },
    settled: () => settle(live()),
    async stop() {
      for (const node of nodes) node.alive = false;
      await Promise.all([...processes.values()].map((c) => terminate(c)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

async function launchNode(port: number, busPort: number, dir: string): Promise<ChildProcess> {
  const bin = process.env['REDIS_SERVER_BIN'] ?? 'redis-server';
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)],
    // A dead master is noticed within a second and its replica always takes over, however long it was out of touch.
    ...['--cluster-node-timeout', '1000', '--cluster-replica-validity-factor', '0'],
    ...['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'],
  ];
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
      reject(new ExitedEarly(`${bin} exited with code ${code} before answering PING: ${stderr}`)),
    );
  });
  exited.catch(() => {}); // Observed below; a later exit is expected (stop, kill).
  await Promise.race([waitForPong(port, child.pid), exited]);
  return child;
}

/** `redis-cli --cluster create`: the first `masters` nodes take the slots, the rest replicate them. */
async function createCluster(nodes: ClusterNode[], replicas: number): Promise<void> {
  const bin = process.env['REDIS_CLI_BIN'] ?? 'redis-cli';
  const args = ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`)];
  args.push('--cluster-replicas', String(replicas), '--cluster-yes');
  const cli = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  cli.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  cli.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    cli.once('error', (error) =>
      reject(new Error(`cannot run ${bin}: ${error.message}; install redis-tools or set REDIS_CLI_BIN`)),
    );
    cli.once('exit', resolve);
  });
  if (code !== 0 || !out.includes('[OK] All 16384 slots covered')) {
    throw new Error(`${bin} --cluster create failed (exit ${code}):\n${out}`);
  }
  await settle(nodes);
}

/** Polls every node until the cluster is whole: state ok everywhere, every replica's link to its master up. */
async function settle(nodes: ClusterNode[]): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const states = await Promise.all(
      nodes.map((node) =>
        withClient(node, async (c) => {
          const info = await c.cluster('INFO');
          const replication = await c.info('replication');
          const ok = /cluster_state:ok/.test(info);
          const linkOk = !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
          return ok && linkOk ? '' : `${node.port}: ${ok ? 'replica link down' : 'cluster not ok'}`;
        }).catch((error: unknown) => `${node.port}: ${(error as Error).message}`),
      ),
    );
    last = states.filter((s) => s !== '').join('; ');
    if (last === '') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the cluster did not settle within ${SETTLE_TIMEOUT_MS} ms: ${last}`);
}

/** A short-lived plain connection to one node. */
async function withClient<T>(node: ClusterNode, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(node.port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  children.delete(child);
  await stopChild(child, signal);
}
