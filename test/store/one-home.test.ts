import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * One home for Redis: the connection factory (src/store/redis/connections.ts), the script loader
 * (src/store/redis/scripts/index.ts) and the key module (src/store/keys.ts) are the only places that open a
 * connection, register a script or spell a key. bench/ and test/ may open direct connections to measure and inspect.
 */

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)));
}

const files = [...sources('src'), ...sources('channels')];
const text = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('one home for Redis in the source', () => {
  it('scans the sources it guards', () => {
    expect(files).toContain('src/store/redis/connections.ts');
    expect(files).toContain('channels/telegram/shared-pacing.ts');
  });

  it('opens connections only in src/store/redis/', () => {
    const opening = files.filter(
      (f) => !f.startsWith('src/store/redis/') && /new (Redis|Cluster|IORedis)\(/.test(text(f)),
    );
    expect(opening).toEqual([]);
    // And there, only the factory opens them.
    const insideStore = files.filter((f) => f.startsWith('src/store/redis/') && /new (Redis|Cluster)\(/.test(text(f)));
    expect(insideStore).toEqual(['src/store/redis/connections.ts']);
  });

  it('registers scripts in one module, with one cast', () => {
    // A script runs by EVALSHA (scripts/index.ts runs every one; it no longer uses ioredis defineCommand).
    const registering = files.filter((f) => /defineCommand\(|\.evalsha\(/.test(text(f)));
    expect(registering).toEqual(['src/store/redis/scripts/index.ts']);
    expect(text('src/store/redis/scripts/index.ts').match(/ as ScriptClient/g)).toHaveLength(1);
  });

  it('imports ioredis values only in src/store/redis/ (elsewhere, types at most)', () => {
    const valueImports = files.filter(
      (f) => !f.startsWith('src/store/redis/') && /^import (?!type )[^;]*from 'ioredis'/m.test(text(f)),
    );
    expect(valueImports).toEqual([]);
  });

  it('keeps the park side off the record codec and ioredis', () => {
    const park = files.filter((f) => f.startsWith('src/runs/'));
    expect(park.length).toBeGreaterThan(0);
    const reaching = park.filter((f) => /from '[^']*(record-codec|ioredis|store\/redis\/scripts)[^']*'/.test(text(f)));
    expect(reaching).toEqual([]);
  });

  it('spells keys only in src/store/keys.ts', () => {
    // A key is spelled as a prefix followed by its name, e.g. `${this.prefix}r:${id}`.
    const spelling = files.filter((f) => f !== 'src/store/keys.ts' && /\$\{[\w.]*[pP]refix\}[\w:]/.test(text(f)));
    expect(spelling).toEqual([]);
    // Nor the default prefix as a string in code (comments may name it).
    const literal = files.filter(
      (f) =>
        f !== 'src/store/keys.ts' &&
        text(f)
          .split('\n')
          .some((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && /['"`]\{askgate\}/.test(line)),
    );
    expect(literal).toEqual([]);
  });
});

/** The connections of a process, as Redis counts them (CLIENT LIST), less the inspecting one. */
describe('connections a process opens', () => {
  let redis: RedisServerHandle;
  let inspect: Redis;

  beforeAll(async () => {
    redis = await startRedisServer({ own: true });
    inspect = new Redis(redis.url);
  });

  afterAll(async () => {
    inspect.disconnect();
    await redis.stop();
  });

  const clients = async (): Promise<number> => ((await inspect.client('LIST')) as string).trim().split('\n').length - 1;

  /** Waits until the count settles at `expected` (BullMQ opens its blocking connections as its workers start). */
  async function settlesAt(expected: number): Promise<void> {
    const end = Date.now() + 10_000;
    let seen = await clients();
    while (seen !== expected && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await clients();
    }
    expect(seen).toBe(expected);
    await new Promise((r) => setTimeout(r, 300));
    expect(await clients()).toBe(expected); // and opens no more
  }

  const env = (extra: Record<string, string> = {}) =>
    loadConfig({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `{conn${Date.now()}}:`,
      LOG_LEVEL: 'silent',
      TELEGRAM_BOT_TOKEN: '123456:one-home-token',
      TELEGRAM_WEBHOOK_SECRET: 'one-home-secret',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:1',
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
      ...extra,
    });

  it('serve: the command connection (store, runs, Telegram pacing), the subscriber and the BullMQ one', async () => {
    const gateway = await createGateway(env(), { workers: false });
    try {
      await settlesAt(3);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('worker: those three, a blocking connection each for the resume and follow-up workers, one for completions', async () => {
    const gateway = await createGateway(env(), { workers: true });
    try {
      await settlesAt(6);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('worker with routes: two more blocking connections, for the turn and reply workers', async () => {
    const routes = JSON.stringify([
      { name: 'desk', channel: 'telegram', identity: 'desk', target: { handler: 'desk' } },
    ]);
    const tokens = JSON.stringify({ 'one-home-token-0123456789abcdef': { identity: 'desk', scopes: ['write'] } });
    const gateway = await createGateway(env({ ASKGATE_ROUTES: routes, ASKGATE_TOKENS: tokens }), { workers: true });
    try {
      await settlesAt(8);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('worker with a confirmation provider: two more, for the bridge and reconcile workers', async () => {
    const gateway = await createGateway(env({ STRIPE_WEBHOOK_SECRET: 'whsec_one_home' }), { workers: true });
    try {
      await settlesAt(8);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('worker with ASKGATE_SHARDS=4: per shard, the resume and follow-up workers and a completions reader (3 + 3·4)', async () => {
    const gateway = await createGateway(env({ ASKGATE_SHARDS: '4' }), { workers: true });
    try {
      await settlesAt(15);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('serve with ASKGATE_SHARDS=4: still three (every shard is enqueued on the one BullMQ connection)', async () => {
    const gateway = await createGateway(env({ ASKGATE_SHARDS: '4' }), { workers: false });
    try {
      await settlesAt(3);
    } finally {
      await gateway.close();
    }
    await settlesAt(0);
  });

  it('serve with waiting handler claims: one more connection per handler queue claimed, however many claims wait', async () => {
    const token = 'one-home-claims-0123456789abcdef';
    const gateway = await createGateway(
      env({
        PORT: '0',
        HOST: '127.0.0.1',
        ASKGATE_TOKENS: JSON.stringify({ [token]: { identity: 'w', scopes: ['write'] } }),
      }),
      { workers: false },
    );
    const stop = new AbortController();
    const claim = (handler: string) =>
      fetch(`${url}/api/continuations/claim`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ handlers: [handler], wait: 60 }),
        signal: stop.signal,
      }).catch(() => null);
    const url = await gateway.listen();
    const waiting: Array<Promise<unknown>> = [];
    try {
      await settlesAt(3);
      for (let i = 0; i < 12; i++) waiting.push(claim('one'));
      await settlesAt(3 + 1);
      for (let i = 0; i < 12; i++) waiting.push(claim('two'));
      await settlesAt(3 + 2);
    } finally {
      stop.abort();
      await Promise.all(waiting);
      await gateway.close();
    }
    await settlesAt(0);
  });
});
