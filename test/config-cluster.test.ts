import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { redactUrl } from '../src/store/redis/connections.js';
import { parseClusterUrl } from '../src/store/redis/cluster-url.js';

/** REDIS_URL's cluster form, ASKGATE_SHARDS and the WAIT option, checked at start. */

const SEEDS = 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('REDIS_URL naming a Redis Cluster', () => {
  it('accepts the seed nodes and keeps the URL as written', () => {
    expect(loadConfig({ REDIS_URL: SEEDS }).redisUrl).toBe(SEEDS);
    expect(parseClusterUrl(SEEDS).nodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
  });

  it('reads a password, with or without a user, and redacts it in messages', () => {
    expect(parseClusterUrl('redis+cluster://:s3cret@h1:1,h2:2')).toMatchObject({ username: null, password: 's3cret' });
    expect(parseClusterUrl('redis+cluster://ops:p%40ss@h1:1/')).toMatchObject({ username: 'ops', password: 'p@ss' });
    expect(redactUrl('redis+cluster://ops:s3cret@h1:1,h2:2')).toBe('redis+cluster://ops:***@h1:1,h2:2');
    expect(redactUrl('redis+cluster://:s3cret@h1:1')).not.toContain('s3cret');
  });

  it('refuses a seed without a port, an empty list and a user without a password, naming REDIS_URL and the form', () => {
    for (const [url, why] of [
      ['redis+cluster://10.0.0.1,10.0.0.2:7001', /"10.0.0.1" is not host:port/],
      ['redis+cluster://h1:99999', /"h1:99999" is not host:port/],
      ['redis+cluster://', /names no node/],
      ['redis+cluster://ops@h1:1', /names a user but no password/],
    ] as const) {
      const error = refusal({ REDIS_URL: url });
      expect(error.variable, url).toBe('REDIS_URL');
      expect(error.message, url).toMatch(why);
      expect(error.message, url).toMatch(/^REDIS_URL: /);
    }
    expect(refusal({ REDIS_URL: 'cluster://h1:1' }).message).toMatch(/redis\+cluster:\/\//);
  });

  it('refuses a key prefix without a hash tag on a cluster (and allows it on one Redis)', () => {
    const error = refusal({ REDIS_URL: SEEDS, ASKGATE_REDIS_PREFIX: 'askgate:' });
    expect(error.variable).toBe('ASKGATE_REDIS_PREFIX');
    expect(error.message).toMatch(/no hash tag/);
    expect(loadConfig({ REDIS_URL: SEEDS, ASKGATE_REDIS_PREFIX: '{ag}:' }).redisPrefix).toBe('{ag}:');
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', ASKGATE_REDIS_PREFIX: 'askgate:' }).redisPrefix).toBe(
      'askgate:',
    );
  });
});

describe('ASKGATE_SHARDS', () => {
  it('takes a whole number from 1 to 64 on Redis, and defaults to 1', () => {
    expect(loadConfig({}).shards).toBe(1);
    expect(loadConfig({ ASKGATE_SHARDS: '1' }).shards).toBe(1);
    expect(loadConfig({ REDIS_URL: SEEDS, ASKGATE_SHARDS: '12' }).shards).toBe(12);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', ASKGATE_SHARDS: '64' }).shards).toBe(64);
  });

  it('refuses a count outside 1..64 by name, with the fix', () => {
    for (const value of ['0', '65', 'many', '2.5', '-3']) {
      const error = refusal({ REDIS_URL: SEEDS, ASKGATE_SHARDS: value });
      expect(error.variable, value).toBe('ASKGATE_SHARDS');
      expect(error.message, value).toMatch(/not a whole number from 1 to 64; set it to e\.g\. 12/);
    }
  });

  it('refuses more than one shard on the in-memory store, or with a prefix that is not {name}:', () => {
    const memory = refusal({ ASKGATE_SHARDS: '4' });
    expect(memory.variable).toBe('ASKGATE_SHARDS');
    expect(memory.message).toMatch(/in-memory store has one shard; set REDIS_URL/);
    const prefixed = refusal({
      REDIS_URL: 'redis://127.0.0.1:6379',
      ASKGATE_REDIS_PREFIX: 'askgate:',
      ASKGATE_SHARDS: '4',
    });
    expect(prefixed.variable).toBe('ASKGATE_SHARDS');
    expect(prefixed.message).toMatch(/needs ASKGATE_REDIS_PREFIX of the form \{name\}:.*"askgate:"/);
    expect(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', ASKGATE_REDIS_PREFIX: '{ag}:', ASKGATE_SHARDS: '4' }).shards,
    ).toBe(4);
  });
});

describe('ASKGATE_REDIS_WAIT_REPLICAS', () => {
  it('defaults to 0 (no WAIT), takes a whole number, and refuses anything else by name', () => {
    expect(loadConfig({}).redisWaitReplicas).toBe(0);
    expect(loadConfig({ ASKGATE_REDIS_WAIT_REPLICAS: '1' }).redisWaitReplicas).toBe(1);
    expect(loadConfig({}).redisWaitTimeoutMs).toBe(1000);
    expect(refusal({ ASKGATE_REDIS_WAIT_REPLICAS: 'one' }).variable).toBe('ASKGATE_REDIS_WAIT_REPLICAS');
    expect(refusal({ ASKGATE_REDIS_WAIT_TIMEOUT_MS: '0' }).variable).toBe('ASKGATE_REDIS_WAIT_TIMEOUT_MS');
  });
});
