import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config-env.js';
import { migrate } from '../../../src/store/postgres/migrations.js';
import { openCheckpointPool } from '../../../src/store/postgres/pool.js';
import { startPostgresServer, type PostgresServerHandle } from '../../helpers/postgres-server.js';

// Migrations at start on a real PostgreSQL: one transaction under an advisory lock, idempotent, safe when several
// processes start at once, and refusing a schema newer than the code.
describe('checkpoint schema migrations', () => {
  let server: PostgresServerHandle;
  const pools: pg.Pool[] = [];
  const openPool = (): pg.Pool => {
    const pool = openCheckpointPool({ url: server.url, statementTimeoutMs: 10_000, max: 2, onIdleError: () => {} });
    pools.push(pool);
    return pool;
  };
  const rows = async <T extends pg.QueryResultRow>(sql: string): Promise<T[]> => (await openPool().query<T>(sql)).rows;

  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await server?.stop();
  });

  it('creates the schema, the version table and the checkpoints table, then finds nothing more to do', async () => {
    const pool = openPool();
    expect(await migrate(pool, 'askgate')).toEqual({ from: 0, to: 1, applied: [1] });
    expect(await rows('SELECT version, name FROM askgate.schema_migrations')).toEqual([
      { version: 1, name: 'checkpoints' },
    ]);
    expect(
      await rows(
        `SELECT column_name, data_type FROM information_schema.columns
         WHERE table_schema = 'askgate' AND table_name = 'checkpoints' ORDER BY ordinal_position`,
      ),
    ).toEqual([
      { column_name: 'run_id', data_type: 'text' },
      { column_name: 'park', data_type: 'text' },
      { column_name: 'owner', data_type: 'text' },
      { column_name: 'kind', data_type: 'text' },
      { column_name: 'parent_run_id', data_type: 'text' },
      { column_name: 'resume', data_type: 'jsonb' },
      { column_name: 'state', data_type: 'bytea' },
      { column_name: 'thread', data_type: 'jsonb' },
      { column_name: 'written_at', data_type: 'timestamp with time zone' },
      { column_name: 'expires_at', data_type: 'timestamp with time zone' },
    ]);
    expect(await migrate(pool, 'askgate')).toEqual({ from: 1, to: 1, applied: [] });
    expect(await rows('SELECT version FROM askgate.schema_migrations')).toEqual([{ version: 1 }]);
  });

  it('applies each step once when twelve processes start at once on an empty database', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => migrate(openPool(), 'crowd')));
    expect(results.filter((r) => r.applied.length > 0)).toEqual([{ from: 0, to: 1, applied: [1] }]);
    expect(results.filter((r) => r.applied.length === 0)).toHaveLength(11);
    expect(await rows('SELECT version FROM crowd.schema_migrations')).toEqual([{ version: 1 }]);
  });

  it('keeps schemas apart: another ASKGATE_CHECKPOINT_SCHEMA gets its own tables', async () => {
    await migrate(openPool(), 'tenant_b');
    expect(
      await rows(
        `SELECT table_schema FROM information_schema.tables WHERE table_name = 'checkpoints'
         AND table_schema IN ('askgate', 'tenant_b') ORDER BY table_schema`,
      ),
    ).toEqual([{ table_schema: 'askgate' }, { table_schema: 'tenant_b' }]);
  });

  it('refuses a schema a newer askgate migrated, naming ASKGATE_CHECKPOINT_URL, and writes nothing', async () => {
    const pool = openPool();
    await migrate(pool, 'newer');
    await pool.query(`INSERT INTO newer.schema_migrations (version, name) VALUES (2, 'from the future')`);
    const refusal = await migrate(pool, 'newer').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).variable).toBe('ASKGATE_CHECKPOINT_URL');
    expect((refusal as ConfigError).message).toMatch(
      /^ASKGATE_CHECKPOINT_URL: the checkpoint schema "newer" is at version 2, newer than this askgate knows \(1\)/,
    );
    expect(await rows('SELECT version FROM newer.schema_migrations ORDER BY version')).toEqual([
      { version: 1 },
      { version: 2 },
    ]);
  });

  it('leaves nothing half-applied when a step fails: the version table is not even created', async () => {
    const pool = openPool();
    await pool.query('CREATE SCHEMA clash');
    await pool.query('CREATE TABLE clash.checkpoints (something int)');
    await expect(migrate(pool, 'clash')).rejects.toThrow(/relation "checkpoints" already exists/);
    expect(
      await rows(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'clash' ORDER BY table_name`),
    ).toEqual([{ table_name: 'checkpoints' }]);
  });
});
