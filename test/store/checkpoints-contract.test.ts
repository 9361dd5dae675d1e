import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../src/runs/checkpoints.js';
import { MemoryCheckpoints } from '../../src/store/memory-checkpoints.js';
import { RedisCheckpoints } from '../../src/store/redis/checkpoints.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { RunLocator } from '../../src/store/redis/run-locator.js';
import { RedisRunStore } from '../../src/store/redis/run-store.js';
import { ShardedRunStore } from '../../src/store/redis/sharded-runs.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { checkpointsContract } from './checkpoints-contract.js';

/** The Checkpoints contract against every implementation: in memory, on Redis, and on Redis spread over shards. */

const RETENTION_MS = 7_200_000;
let redis: RedisServerHandle;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const prefix = (): string => `{cp${randomBytes(5).toString('hex')}}:`;

checkpointsContract('memory', async () => ({
  checkpoints: new MemoryCheckpoints(RETENTION_MS),
  cleanup: async () => undefined,
}));

checkpointsContract('redis', async () => {
  const connections = new RedisConnections({ url: redis.url, prefix: prefix() });
  await connections.connect(connections.command());
  return {
    checkpoints: new RedisCheckpoints(connections.command(), connections.keys, RETENTION_MS),
    cleanup: () => connections.close(),
  };
});

checkpointsContract('redis, three shards', async () => {
  const connections = new RedisConnections({ url: redis.url, prefix: prefix(), shards: 3 });
  await connections.connect(connections.command());
  const stores = connections.shardKeys.map(
    (keys) => new RedisRunStore(connections, RETENTION_MS, 600_000, false, keys),
  );
  const runs = new ShardedRunStore(stores, new RunLocator(connections.command(), connections.shardKeys));
  return { checkpoints: runs.checkpoints, cleanup: () => connections.close() };
});

const checkpoint: Checkpoint = {
  owner: 'deploy-bot',
  kind: 'tool',
  parentRunId: null,
  resume: { handler: 'deploy' },
  state: { step: 1 },
  thread: null,
};

describe('retention', () => {
  it('memory: a checkpoint is gone once the retention passed since its last write, and its run id is free', async () => {
    let now = 1_000_000;
    const checkpoints = new MemoryCheckpoints(60_000, () => now);
    await checkpoints.save('old', checkpoint);
    now += 59_999;
    await checkpoints.save('young', checkpoint);
    expect(await checkpoints.load('old')).toEqual(checkpoint);
    now += 1;
    expect(await checkpoints.load('old')).toBeNull();
    expect(await checkpoints.load('young')).toEqual(checkpoint);
    expect(
      await checkpoints.bindThread('old', 'someone-else', {
        channel: 'web',
        recipient: 'r',
        replyToMessageId: null,
        route: 'w',
      }),
    ).toBe(true);
  });

  it('redis: every write sets the run hash to expire after the retention', async () => {
    const connections = new RedisConnections({ url: redis.url, prefix: prefix() });
    await connections.connect(connections.command());
    try {
      const raw = connections.command() as unknown as Redis;
      const checkpoints = new RedisCheckpoints(connections.command(), connections.keys, 60_000);
      await checkpoints.save('saved', checkpoint);
      await checkpoints.bindThread('bound', 'deploy-bot', {
        channel: 'web',
        recipient: 'r',
        replyToMessageId: null,
        route: 'w',
      });
      for (const runId of ['saved', 'bound']) {
        const ttl = await raw.pttl(connections.keys.run(runId));
        expect(ttl).toBeGreaterThan(50_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
    } finally {
      await connections.close();
    }
  });
});
