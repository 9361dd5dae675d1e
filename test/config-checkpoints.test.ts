import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const REDIS = { REDIS_URL: 'redis://127.0.0.1:6379' };
const PG = 'postgres://askgate:s3cret-pw@db.internal:5432/askgate';

describe('the checkpointer from the environment', () => {
  it('keeps checkpoints in Redis when ASKGATE_CHECKPOINT_URL is unset', () => {
    expect(loadConfig(REDIS).checkpointPostgres).toBeNull();
    expect(loadConfig({}).checkpointPostgres).toBeNull();
  });

  it('takes a postgres:// or postgresql:// URL, with the schema askgate and bounded defaults', () => {
    expect(loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_URL: PG }).checkpointPostgres).toEqual({
      url: PG,
      schema: 'askgate',
      statementTimeoutMs: 5000,
      poolSize: 10,
    });
    const tuned = loadConfig({
      ...REDIS,
      ASKGATE_CHECKPOINT_URL: 'postgresql://db/askgate',
      ASKGATE_CHECKPOINT_SCHEMA: 'tenant_b',
      ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS: '2000',
      ASKGATE_CHECKPOINT_POOL_SIZE: '25',
    }).checkpointPostgres;
    expect(tuned).toEqual({
      url: 'postgresql://db/askgate',
      schema: 'tenant_b',
      statementTimeoutMs: 2000,
      poolSize: 25,
    });
  });

  it('refuses a URL that is not PostgreSQL, naming the variable and never echoing the password', () => {
    const attempt = (url: string): string => {
      try {
        loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_URL: url });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(attempt('mysql://u:s3cret-pw@db/askgate')).toBe(
      'ASKGATE_CHECKPOINT_URL: must start with postgres:// or postgresql:// (it starts with mysql://); ' +
        'unset it to keep checkpoints in Redis.',
    );
    expect(attempt('not a url s3cret-pw')).toBe(
      'ASKGATE_CHECKPOINT_URL: is not a URL; set it to postgres://user:password@host:5432/database.',
    );
    expect(attempt('postgres:///askgate')).toBe(
      'ASKGATE_CHECKPOINT_URL: names no host; set it to postgres://user:password@host:5432/database.',
    );
  });

  it('needs REDIS_URL: the park index, questions, claims and queues stay in Redis', () => {
    expect(() => loadConfig({ ASKGATE_CHECKPOINT_URL: PG })).toThrow(
      /^ASKGATE_CHECKPOINT_URL: needs REDIS_URL: parked runs keep their park index, questions, claims and queues in Redis/,
    );
  });

  it('refuses a schema name it would have to quote, and tuning without a URL', () => {
    for (const schema of ['Askgate', '1st', 'ask-gate', 'a;drop', 'x'.repeat(64)])
      expect(
        () => loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_URL: PG, ASKGATE_CHECKPOINT_SCHEMA: schema }),
        schema,
      ).toThrow(/^ASKGATE_CHECKPOINT_SCHEMA: ".*" is not a schema name askgate accepts/);
    expect(() => loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_SCHEMA: 'askgate' })).toThrow(
      /^ASKGATE_CHECKPOINT_SCHEMA: is set but ASKGATE_CHECKPOINT_URL is not/,
    );
    expect(() => loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_URL: PG, ASKGATE_CHECKPOINT_POOL_SIZE: '0' })).toThrow(
      /^ASKGATE_CHECKPOINT_POOL_SIZE: "0" is not a whole number from 1 to 1000/,
    );
    expect(() =>
      loadConfig({ ...REDIS, ASKGATE_CHECKPOINT_URL: PG, ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS: '5s' }),
    ).toThrow(/^ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS: "5s" is not a whole number from 1 to 600000/);
  });
});
