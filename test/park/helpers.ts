import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Identity } from '../../src/core/types.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { RedisRunStore } from '../../src/store/redis/run-store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** A resume-webhook receiver that verifies every delivery with the `standardwebhooks` package, as a user would. */
export interface Receiver {
  url: string;
  /** Verified deliveries, in arrival order. */
  deliveries: Array<{ id: string; body: Record<string, unknown> }>;
  /** Requests refused by the test on purpose (`/fail-first/...` answers 500 to the first delivery of each id). */
  refused: string[];
  /** Deliveries whose signature did not verify (must stay empty). */
  unverified: number;
  close(): Promise<void>;
}

export function webhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A delivery whose signature verified: the path it was posted to, its `webhook-id`, its parsed body. */
export interface VerifiedDelivery {
  path: string;
  id: string;
  body: Record<string, unknown>;
}

/**
 * An HTTP server on 127.0.0.1 that checks every request with the `standardwebhooks` package, as a user's receiver
 * would: a bad signature is answered 401 and reported to `onUnverified`; a good one is handed to `onDelivery`.
 */
export async function startVerifyingServer(
  secret: string,
  onDelivery: (delivery: VerifiedDelivery, res: ServerResponse) => void,
  onUnverified: () => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const wh = new Webhook(secret);
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        wh.verify(raw, headers);
      } catch {
        onUnverified();
        res.writeHead(401).end();
        return;
      }
      onDelivery(
        { path: req.url ?? '', id: headers['webhook-id'] as string, body: JSON.parse(raw) as Record<string, unknown> },
        res,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'close'> = { deliveries: [], refused: [], unverified: 0 };
  const server = await startVerifyingServer(
    secret,
    ({ path, id, body }, res) => {
      if (path.startsWith('/fail-first') && !receiver.refused.includes(id)) {
        receiver.refused.push(id);
        res.writeHead(500).end();
        return;
      }
      receiver.deliveries.push({ id, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'done' }));
    },
    () => (receiver.unverified += 1),
  );
  return Object.assign(receiver, server);
}

/** Where the fixture continuation worker reports `started` / `completed`. */
export interface Recorder {
  url: string;
  events: Array<{ event: string; pid: number; continuation: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startRecorder(): Promise<Recorder> {
  const events: Recorder['events'] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      events.push(JSON.parse(raw) as Recorder['events'][number]);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, events, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const FIXTURE = fileURLToPath(new URL('../fixtures/continuation-worker.mjs', import.meta.url));

/** Spawns an SDK continuation worker fixture (by default continuation-worker.mjs) as its own process; waits until it consumes. */
export async function spawnContinuationWorker(env: Record<string, string>, fixture = FIXTURE): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`continuation worker did not start:\n${out}`)), 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('continuation worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`continuation worker exited with ${code}:\n${out}`)));
  });
  return child;
}

/**
 * Spawns an SDK continuation worker on the gateway at `gatewayUrl` with `token` (the identity whose runs it
 * continues), reporting to the recorder at `recorderUrl` (`env` adds to its environment), and adds it to `children`,
 * which the test file's afterAll kills: a test that fails before stopping its worker leaves no process behind.
 */
export async function startSdkWorker(
  on: { gatewayUrl: string; token: string; recorderUrl: string; env?: Record<string, string> },
  children: ChildProcess[],
): Promise<ChildProcess> {
  const worker = await spawnContinuationWorker({
    GATEWAY_URL: on.gatewayUrl,
    TOKEN: on.token,
    RECORDER: on.recorderUrl,
    ...on.env,
  });
  children.push(worker);
  return worker;
}

export { stopChild } from '../helpers/child.js';

/** Polls `check` until it holds; the bound only turns a hang into a readable failure. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Watches `check` for `ms` and fails the moment it is false: "delivered once" holds only if no late duplicate shows
 * up after the first delivery. The window is wider than a resume's retry backoff in these tests (100 ms, doubling).
 */
export async function holds(check: () => boolean | Promise<boolean>, what: string, ms = 1_500): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!(await check())) throw new Error(`no longer true: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An RFC 3339 moment `ms` from now. */
export function inMs(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** A gateway without HTTP or workers on its own redis-server, a raw client on it, and a RunStore reading its runs. */
export interface ParkWorld {
  redis: RedisServerHandle;
  raw: Redis;
  gateway: Gateway;
  /** The identity of `token`. */
  identity: Identity;
  runs: RedisRunStore;
  close(): Promise<void>;
}

/**
 * Starts a {@link ParkWorld} under `prefix`, with one token (`token`, scopes read/write/answer, plus `tokenFields`)
 * for `identity`, runs retained `retentionMinutes` and an idle TTL of ten minutes.
 */
export async function startParkWorld(options: {
  prefix: string;
  token: string;
  identity: string;
  retentionMinutes: number;
  tokenFields?: Record<string, unknown>;
}): Promise<ParkWorld> {
  const { prefix, token, retentionMinutes } = options;
  const redis = await startRedisServer();
  const raw = new Redis(redis.url);
  const config = loadConfig({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
    LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES: String(retentionMinutes),
    INTERACTIONS_IDLE_TTL_SECONDS: '600',
    ASKGATE_TOKENS: JSON.stringify({
      [token]: { identity: options.identity, scopes: ['read', 'write', 'answer'], ...options.tokenFields },
    }),
  });
  const gateway = await createGateway(config, { workers: false });
  const runs = await RedisRunStore.connect({
    url: redis.url,
    prefix,
    retentionMs: retentionMinutes * 60_000,
    idleTtlMs: 600_000,
  });
  return {
    redis,
    raw,
    gateway,
    identity: config.tokens.get(token) as Identity,
    runs,
    async close() {
      await runs.close();
      await gateway.close();
      await raw.quit();
      await redis.stop();
    },
  };
}

/**
 * Starts a {@link ParkWorld} before the calling file's tests and closes it after them (its beforeAll / afterAll),
 * handing it to `started` for the file to keep the parts it uses: the files that share one world per file start and
 * close it the same way.
 */
export function useParkWorld(options: Parameters<typeof startParkWorld>[0], started: (world: ParkWorld) => void): void {
  let world: ParkWorld | undefined;
  beforeAll(async () => {
    world = await startParkWorld(options);
    started(world);
  });
  afterAll(async () => {
    await world?.close();
  });
}

/**
 * Parks run `runId` (`run` adds its resume and the run's other fields) on one async confirm ask, expiring in an
 * hour, asked in-process as `identity`; resolves with the ask's id.
 */
export async function parkOnOneAsk(
  gateway: Gateway,
  identity: Identity,
  runId: string,
  run: Record<string, unknown>,
): Promise<string> {
  const record = await gateway.service.ask(
    {
      question: 'Ship it?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(3_600_000),
      run: { run_id: runId, ...run },
    },
    identity,
  );
  return record.id;
}
