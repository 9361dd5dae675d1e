import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateError } from '../../../src/core/errors.js';
import { CheckpointTable, type CheckpointRowInput } from '../../../src/store/postgres/checkpoint-table.js';
import { migrate } from '../../../src/store/postgres/migrations.js';
import { openCheckpointPool } from '../../../src/store/postgres/pool.js';
import { startPostgresServer, type PostgresServerHandle } from '../../helpers/postgres-server.js';

const HOUR_MS = 3_600_000;

const row = (overrides: Partial<CheckpointRowInput> = {}): CheckpointRowInput => ({
  owner: 'alice',
  kind: 'agent',
  parentRunId: null,
  resume: '{"webhook":"https://agent.example/resume"}',
  state: '{"step":1}',
  thread: null,
  ...overrides,
});

// The checkpoints table on a real PostgreSQL: the database's clock decides expiry (a retention of 0 ms makes a row
// expired at once, the way a fake clock would), and the server is stopped and crashed under the pool.
describe('the PostgreSQL checkpoints table', () => {
  let server: PostgresServerHandle;
  let pool: pg.Pool;
  let idleErrors: Error[];
  let table: CheckpointTable;
  const observed = { read: 0, write: 0, swept: [] as number[] };

  beforeAll(async () => {
    server = await startPostgresServer();
    idleErrors = [];
    pool = openCheckpointPool({
      url: server.url,
      statementTimeoutMs: 5_000,
      max: 4,
      onIdleError: (error) => idleErrors.push(error),
    });
    await migrate(pool, 'askgate');
    table = new CheckpointTable(pool, 'askgate', HOUR_MS, {
      read: () => observed.read++,
      write: () => observed.write++,
      swept: (rows) => observed.swept.push(rows),
    });
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('gives a checkpoint back as written, the state byte for byte, and nothing for an unknown run', async () => {
    // Key order, spacing, escapes and astral characters that jsonb would normalise.
    const state = '{"z":1,"a":[1.50,"\\u0000",{"b":null,"a":"héllo 🐙"}],"z":2}';
    expect(await table.write('run-1', '', row({ state, parentRunId: 'parent-1' }))).toBe(true);
    expect(await table.read('run-1', '')).toEqual({
      owner: 'alice',
      kind: 'agent',
      parentRunId: 'parent-1',
      resume: { webhook: 'https://agent.example/resume' },
      state,
      thread: null,
    });
    expect(await table.read('no-such-run', '')).toBeNull();
  });

  it('keeps a 900 KiB state whole', async () => {
    const state = JSON.stringify({ blob: 'x'.repeat(900 * 1024) });
    await table.write('run-big', '', row({ state }));
    expect((await table.read('run-big', ''))?.state).toBe(state);
  });

  it('keeps a run to its owner: another identity can neither write nor bind it', async () => {
    await table.write('run-owned', '', row());
    expect(await table.write('run-owned', '', row({ owner: 'mallory', state: '"taken"' }))).toBe(false);
    expect(await table.bindThread('run-owned', 'mallory', '{"channel":"telegram"}')).toBe(false);
    expect(await table.read('run-owned', '')).toMatchObject({ owner: 'alice', state: '{"step":1}', thread: null });
  });

  it('binds a thread before the park: the bound row is no checkpoint, and the park keeps its thread', async () => {
    const thread = '{"channel":"telegram","recipient":"42","replyToMessageId":null,"route":"support"}';
    expect(await table.bindThread('run-chat', 'alice', thread)).toBe(true);
    expect(await table.read('run-chat', '')).toBeNull();
    await table.write('run-chat', '', row({ thread: null }));
    expect((await table.read('run-chat', ''))?.thread).toEqual({
      channel: 'telegram',
      recipient: '42',
      replyToMessageId: null,
      route: 'support',
    });
    // A later park of the same run replaces its checkpoint; a second bind replaces the thread and keeps the state.
    await table.write('run-chat', '', row({ state: '{"step":2}' }));
    await table.bindThread('run-chat', 'alice', '{"channel":"slack"}');
    expect(await table.read('run-chat', '')).toMatchObject({ state: '{"step":2}', thread: { channel: 'slack' } });
  });

  it('treats an expired row as gone: unread, and free for another owner without its old thread', async () => {
    const expiring = new CheckpointTable(pool, 'askgate', 0);
    await expiring.bindThread('run-old', 'alice', '{"channel":"telegram"}');
    await expiring.write('run-old', '', row());
    expect(await table.read('run-old', '')).toBeNull();
    expect(await table.write('run-old', '', row({ owner: 'bob' }))).toBe(true);
    expect(await table.read('run-old', '')).toMatchObject({ owner: 'bob', thread: null });
  });

  it('restarts the retention from a resume read, by the database clock, and not from a plain read', async () => {
    await table.write('run-retry', '', row());
    await pool.query(
      `UPDATE askgate.checkpoints SET expires_at = now() + interval '1 minute' WHERE run_id = 'run-retry'`,
    );
    const left = async (): Promise<boolean> =>
      (
        await pool.query<{ long: boolean }>(
          `SELECT expires_at > now() + interval '59 minutes' AS long FROM askgate.checkpoints WHERE run_id = 'run-retry'`,
        )
      ).rows[0]?.long === true;
    await table.read('run-retry', '');
    expect(await left()).toBe(false);
    expect((await table.read('run-retry', '', { refresh: true }))?.state).toBe('{"step":1}');
    expect(await left()).toBe(true);
    await pool.query(
      `UPDATE askgate.checkpoints SET expires_at = now() - interval '1 second' WHERE run_id = 'run-retry'`,
    );
    expect(await table.read('run-retry', '', { refresh: true })).toBeNull();
  });

  it('leaves a row with more than half its retention ahead as it is on a resume read, and restarts one with less', async () => {
    const daily = new CheckpointTable(pool, 'askgate', 24 * HOUR_MS);
    await daily.write('run-fresh', '', row());
    const version = async (): Promise<{ xmin: string; hours: number } | undefined> =>
      (
        await pool.query<{ xmin: string; hours: number }>(
          `SELECT xmin::text, round(extract(epoch FROM expires_at - now()) / 3600)::int AS hours
           FROM askgate.checkpoints WHERE run_id = 'run-fresh'`,
        )
      ).rows[0];
    const written = await version();
    expect(written?.hours).toBe(24);
    expect((await daily.read('run-fresh', '', { refresh: true }))?.state).toBe('{"step":1}');
    // Not rewritten: the same row version (a write would make a new one, and WAL for its commit to flush).
    expect(await version()).toEqual(written);
    // 11 hours left of 24: the resume read restarts the retention.
    await pool.query(
      `UPDATE askgate.checkpoints SET expires_at = now() + interval '11 hours' WHERE run_id = 'run-fresh'`,
    );
    const aged = await version();
    expect(aged?.hours).toBe(11);
    expect((await daily.read('run-fresh', '', { refresh: true }))?.state).toBe('{"step":1}');
    const refreshed = await version();
    expect(refreshed?.hours).toBe(24);
    expect(refreshed?.xmin).not.toBe(aged?.xmin);
  });

  it('keeps one row per park: a refused park drops only its own, and a new park drops the earlier ones', async () => {
    expect(await table.write('run-parks', 'park-a', row({ state: '"a"' }))).toBe(true);
    expect(await table.write('run-parks', 'park-b', row({ state: '"b"' }))).toBe(true);
    expect((await table.read('run-parks', 'park-a'))?.state).toBe('"a"');
    expect((await table.latest('run-parks'))?.state).toBe('"b"');
    await table.remove('run-parks', 'park-b');
    expect(await table.read('run-parks', 'park-b')).toBeNull();
    expect((await table.read('run-parks', 'park-a'))?.state).toBe('"a"');
    expect(await table.write('run-parks', 'park-c', row({ owner: 'mallory' }))).toBe(false);
    await table.bindThread('run-parks', 'alice', '{"channel":"web"}');
    await table.write('run-parks', 'park-c', row({ state: '"c"' }));
    expect((await table.read('run-parks', 'park-c'))?.thread).toEqual({ channel: 'web' });
    await table.removeOthers('run-parks', 'park-c');
    const left = await pool.query<{ park: string }>(
      `SELECT park FROM askgate.checkpoints WHERE run_id = 'run-parks' ORDER BY park`,
    );
    expect(left.rows.map((r) => r.park)).toEqual(['', 'park-c']);
  });

  it('sweeps expired rows in batches, leaves live ones, and skips a row another transaction holds', async () => {
    await pool.query('DELETE FROM askgate.checkpoints');
    await pool.query(
      `INSERT INTO askgate.checkpoints (run_id, park, owner, kind, resume, expires_at)
       SELECT 'expired-' || i, '', 'alice', 'tool', '{}', now() - interval '1 minute' FROM generate_series(1, 1203) i`,
    );
    await pool.query(
      `INSERT INTO askgate.checkpoints (run_id, park, owner, kind, resume, expires_at)
       SELECT 'live-' || i, '', 'alice', 'tool', '{}', now() + interval '1 hour' FROM generate_series(1, 5) i`,
    );
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM askgate.checkpoints WHERE run_id = 'expired-7' FOR UPDATE`);
      observed.swept = [];
      expect(await table.sweep(500)).toBe(1202);
      expect(observed.swept).toEqual([1202]);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await table.sweep(500)).toBe(1);
    expect(await table.sweep(500)).toBe(0);
    const left = await pool.query<{ run_id: string }>('SELECT run_id FROM askgate.checkpoints ORDER BY run_id');
    expect(left.rows.map((r) => r.run_id)).toEqual(['live-1', 'live-2', 'live-3', 'live-4', 'live-5']);
  });

  it('prepares its statements under names PostgreSQL keeps whole, even in a schema with a 63-byte name', async () => {
    const schema = `askgate_${'x'.repeat(55)}`;
    expect(Buffer.byteLength(schema)).toBe(63);
    const single = openCheckpointPool({
      url: server.url,
      statementTimeoutMs: 5_000,
      max: 1,
      onIdleError: () => undefined,
    });
    const warned: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warned.push(args);
    try {
      await migrate(single, schema);
      const long = new CheckpointTable(single, schema, HOUR_MS);
      expect(await long.write('run-long', 'p1', row())).toBe(true);
      expect((await long.read('run-long', 'p1'))?.owner).toBe('alice');
      expect((await long.read('run-long', 'p1', { refresh: true }))?.owner).toBe('alice');
      // One connection: the statements it prepared, as the server names them (it cuts a name at 63 bytes).
      const prepared = await single.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
      const names = prepared.rows.map((r) => r.name);
      expect(names).toHaveLength(3);
      for (const name of names) expect(name).toMatch(/^askgate-ck-(read|read-refresh|write)-[0-9a-f]{16}$/);
      expect(new Set(names.map((n) => n.split('-').slice(0, -1).join('-')))).toEqual(
        new Set(['askgate-ck-read', 'askgate-ck-read-refresh', 'askgate-ck-write']),
      );
      expect(warned).toEqual([]);
    } finally {
      console.warn = warn;
      await single.end();
    }
  });

  it('counts reads and writes for the latency metrics', () => {
    expect(observed.read).toBeGreaterThan(0);
    expect(observed.write).toBeGreaterThan(0);
  });

  it('fails as store_unavailable naming the variable while the server is down, and serves again once it is up', async () => {
    await server.down();
    const refusal = await table.write('run-down', '', row()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AskgateError);
    expect((refusal as AskgateError).code).toBe('store_unavailable');
    expect((refusal as AskgateError).message).toMatch(/ASKGATE_CHECKPOINT_URL/);
    await expect(table.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
    await server.up();
    expect(await table.write('run-down', '', row())).toBe(true);
    await table.ping();
  });

  it('survives an error on an idle connection (the server crashed under it): the handler takes it, the pool reconnects', async () => {
    await table.ping(); // at least one idle connection in the pool
    const idle = pool.idleCount;
    expect(idle).toBeGreaterThan(0);
    idleErrors.length = 0;
    const told = new Promise<void>((resolve) => {
      const check = (): void => {
        if (pool.idleCount === 0) resolve();
        else setImmediate(check);
      };
      check();
    });
    await server.restart({ crash: true });
    await told;
    expect(idleErrors.length).toBe(idle);
    expect((await table.read('run-down', ''))?.owner).toBe('alice');
  });
});
