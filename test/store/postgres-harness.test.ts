import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, type PostgresServerHandle } from '../helpers/postgres-server.js';

// The harness the PostgreSQL checkpoint tests stand on: a real server of our own that a test can crash and restart.
describe('the throwaway PostgreSQL server', () => {
  let server: PostgresServerHandle;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      return (await client.query<T>(sql, values)).rows;
    } finally {
      await client.end();
    }
  }

  it('accepts connections as the postgres user on its own port, not 5432', async () => {
    expect(server.port).not.toBe(5432);
    expect(await query<{ user: string }>('SELECT current_user AS user')).toEqual([{ user: 'postgres' }]);
  });

  it('keeps a committed row through a SIGKILL of the whole server and comes back on the same port', async () => {
    await query('CREATE TABLE survivors (id int PRIMARY KEY)');
    await query('INSERT INTO survivors VALUES (1), (2)');
    await server.restart({ crash: true });
    expect(await query<{ id: number }>('SELECT id FROM survivors ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('refuses connections while down and serves the same data after up', async () => {
    await server.down();
    await expect(query('SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await server.up();
    expect(await query<{ n: string }>('SELECT count(*) AS n FROM survivors')).toEqual([{ n: '2' }]);
  });
});
