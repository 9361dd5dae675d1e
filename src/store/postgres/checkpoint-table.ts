import pg from 'pg';
import { postgresCall } from './pool.js';

/** One run's row as askgate writes it: the checkpoint of its latest park. JSON values travel as JSON text. */
export interface CheckpointRowInput {
  owner: string;
  kind: 'tool' | 'agent';
  parentRunId: string | null;
  /** The resume target, as JSON text. */
  resume: string;
  /** The checkpoint state as JSON text, kept and given back byte for byte; null when none was handed in. */
  state: string | null;
  /** The chat thread as JSON text; null keeps the thread bound before (if any). */
  thread: string | null;
}

/** One run's row as read back: JSON columns parsed, the state still its JSON text. */
export interface CheckpointRow {
  owner: string;
  kind: 'tool' | 'agent';
  parentRunId: string | null;
  resume: unknown;
  state: string | null;
  thread: unknown;
}

/** Told how long each read and write took and how many expired rows a sweep deleted (the metrics). */
export interface CheckpointTableObserver {
  read(seconds: number): void;
  write(seconds: number): void;
  swept(rows: number): void;
}

interface RowRecord {
  owner: string;
  kind: 'tool' | 'agent';
  parent_run_id: string | null;
  resume: unknown;
  state: Buffer | null;
  thread: unknown;
}

const COLUMNS = 'owner, kind, parent_run_id, resume, state, thread';

/**
 * The checkpoints table (migrations.ts) and every statement askgate runs on it. Expiry is the database's clock:
 * each write sets `expires_at = now() + retention`, a read ignores a row past it (as if it were gone), and a row
 * past it is another owner's to take. {@link sweep} deletes expired rows in batches. Every call is bounded by the
 * pool's timeouts and fails as `store_unavailable`.
 */
export class CheckpointTable {
  private readonly table: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    /** The checkpoint retention, ms, from each write (LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES). */
    private readonly retentionMs: number,
    private readonly observer: CheckpointTableObserver | null = null,
  ) {
    this.table = `${pg.escapeIdentifier(schema)}.checkpoints`;
  }

  /**
   * The run's checkpoint, or null when it has none that is still kept (never parked, only bound to a thread, or past
   * its retention). With `refresh`, reading it also restarts its retention: a resume attempt is a write of the run,
   * so a long chain of retries never outlives the checkpoint it resumes from.
   */
  async read(runId: string, options: { refresh?: boolean } = {}): Promise<CheckpointRow | null> {
    const sql = options.refresh
      ? `UPDATE ${this.table} SET expires_at = now() + $2 * interval '1 millisecond'
           WHERE run_id = $1 AND kind IS NOT NULL AND expires_at > now() RETURNING ${COLUMNS}`
      : `SELECT ${COLUMNS} FROM ${this.table} WHERE run_id = $1 AND kind IS NOT NULL AND expires_at > now()`;
    const params = options.refresh ? [runId, this.retentionMs] : [runId];
    const result = await this.timed('read', () => this.pool.query<RowRecord>(sql, params));
    const row = result.rows[0];
    if (row === undefined) return null;
    return {
      owner: row.owner,
      kind: row.kind,
      parentRunId: row.parent_run_id,
      resume: row.resume,
      state: row.state === null ? null : row.state.toString('utf8'),
      thread: row.thread,
    };
  }

  /**
   * Keeps `row` as the run's checkpoint, replacing an earlier park's, and restarts its retention. A null thread keeps
   * the thread still kept for the run. False (nothing written) when a kept row belongs to another owner.
   */
  async write(runId: string, row: CheckpointRowInput): Promise<boolean> {
    const result = await this.timed('write', () =>
      this.pool.query(
        `INSERT INTO ${this.table} AS c (run_id, ${COLUMNS}, written_at, expires_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, now(), now() + $8 * interval '1 millisecond')
         ON CONFLICT (run_id) DO UPDATE SET
           owner = EXCLUDED.owner, kind = EXCLUDED.kind, parent_run_id = EXCLUDED.parent_run_id,
           resume = EXCLUDED.resume, state = EXCLUDED.state,
           thread = CASE WHEN c.expires_at > now() THEN coalesce(EXCLUDED.thread, c.thread) ELSE EXCLUDED.thread END,
           written_at = now(), expires_at = EXCLUDED.expires_at
         WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now()
         RETURNING 1`,
        [
          runId,
          row.owner,
          row.kind,
          row.parentRunId,
          row.resume,
          row.state === null ? null : Buffer.from(row.state, 'utf8'),
          row.thread,
          this.retentionMs,
        ],
      ),
    );
    return result.rowCount === 1;
  }

  /**
   * Binds the run to `owner` and a chat thread before it parks: a new row holds only them; a kept row of the same
   * owner gets the new thread and keeps its checkpoint. False (nothing written) when a kept row has another owner.
   */
  async bindThread(runId: string, owner: string, thread: string): Promise<boolean> {
    const result = await this.timed('write', () =>
      this.pool.query(
        `INSERT INTO ${this.table} AS c (run_id, owner, thread, written_at, expires_at)
           VALUES ($1, $2, $3::jsonb, now(), now() + $4 * interval '1 millisecond')
         ON CONFLICT (run_id) DO UPDATE SET
           owner = EXCLUDED.owner, thread = EXCLUDED.thread, written_at = now(), expires_at = EXCLUDED.expires_at,
           kind = CASE WHEN c.expires_at > now() THEN c.kind END,
           parent_run_id = CASE WHEN c.expires_at > now() THEN c.parent_run_id END,
           resume = CASE WHEN c.expires_at > now() THEN c.resume END,
           state = CASE WHEN c.expires_at > now() THEN c.state END
         WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now()
         RETURNING 1`,
        [runId, owner, thread, this.retentionMs],
      ),
    );
    return result.rowCount === 1;
  }

  /** Deletes the run's row if `owner` owns it: the undoing of a park the run store then refused. */
  async remove(runId: string, owner: string): Promise<void> {
    await this.timed('write', () =>
      this.pool.query(`DELETE FROM ${this.table} WHERE run_id = $1 AND owner = $2`, [runId, owner]),
    );
  }

  /**
   * Deletes rows past their retention, `batch` at a time until a batch comes back short; returns how many. Rows are
   * picked with FOR UPDATE SKIP LOCKED, so sweeps of several workers at once share the work instead of waiting on
   * one another, and a row a park is rewriting right now is left to that park.
   */
  async sweep(batch = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await postgresCall(() =>
        this.pool.query(
          `DELETE FROM ${this.table} WHERE run_id IN (
             SELECT run_id FROM ${this.table} WHERE expires_at <= now()
             ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
          [batch],
        ),
      );
      const deleted = result.rowCount ?? 0;
      total += deleted;
      if (deleted < batch) break;
    }
    this.observer?.swept(total);
    return total;
  }

  /** One trivial round trip: resolves when the database answers (readiness), else `store_unavailable`. */
  async ping(): Promise<void> {
    await postgresCall(() => this.pool.query('SELECT 1'));
  }

  private async timed<T>(kind: 'read' | 'write', call: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    try {
      return await postgresCall(call);
    } finally {
      this.observer?.[kind](Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}
