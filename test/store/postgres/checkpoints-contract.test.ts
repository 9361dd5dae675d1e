import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { CheckpointTable } from '../../../src/store/postgres/checkpoint-table.js';
import { PostgresCheckpoints } from '../../../src/store/postgres/checkpoints.js';
import { migrate } from '../../../src/store/postgres/migrations.js';
import { openCheckpointPool } from '../../../src/store/postgres/pool.js';
import { startPostgresServer, type PostgresServerHandle } from '../../helpers/postgres-server.js';
import { checkpointsContract } from '../checkpoints-contract.js';

/** The Checkpoints contract (test/store/checkpoints-contract.ts) against PostgreSQL, as memory and Redis pass it. */

let server: PostgresServerHandle;
let pool: pg.Pool;
let n = 0;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = openCheckpointPool({ url: server.url, statementTimeoutMs: 5_000, max: 4, onIdleError: () => {} });
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

checkpointsContract('postgres', async () => {
  // A schema of its own per case: what one case wrote cannot be seen by the next.
  const schema = `contract_${++n}`;
  await migrate(pool, schema);
  return {
    checkpoints: new PostgresCheckpoints(new CheckpointTable(pool, schema, 7_200_000)),
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
});
