import { createHash } from 'node:crypto';
import pg from 'pg';
import { postgresCall } from './pool.js';

/** One park's checkpoint as askgate writes it. JSON values travel as JSON text. */
export interface CheckpointRowInput {
  owner: string;
  kind: 'tool' | 'agent';
  parentRunId: string | null;
  /** The resume target, as JSON text. */
  resume: string;
  /** The checkpoint state as JSON text, kept and given back byte for byte; null when none was handed in. */
  state: string | null;
  /** The chat thread as JSON text; null takes the thread bound to the run (if any). */
  thread: string | null;
}

/** One park's checkpoint as read back: JSON columns parsed, the state still its JSON text. */
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
 * How much retention a row may have left for a resume read to leave it as it is: half the retention, and never less
 * than an hour. The longest wait between two resume attempts is the backoff's cap, 15 minutes, so a read that leaves a
 * row alone still leaves a retry chain at least an hour (or the whole retention, when that is shorter) ahead; a
 * retention of two hours or less is restarted by every attempt.
 */
export function refreshBelowMs(retentionMs: number): number {
  return Math.max(Math.floor(retentionMs / 2), 3_600_000);
}

type StatementKind = 'read' | 'read-refresh' | 'write';

/** `askgate-ck-<what>-<16 hex of the table's SHA-256>`: at most 40 bytes, distinct per statement and table. */
function statementName(what: StatementKind, table: string): string {
  return `askgate-ck-${what}-${createHash('sha256').update(table).digest('hex').slice(0, 16)}`;
}

/** The park of the row the Checkpoints port itself writes (save) and binds a thread to (bindThread). */
export const RUN_ROW = '';

/**
 * The checkpoints table (migrations.ts) and every statement askgate runs on it. A row is one park of one run (`park`
 * is its reference; {@link RUN_ROW} the run's own row). Expiry is the database's clock: each write sets
 * `expires_at = now() + retention`, a read ignores a row past it (as if it were gone), and a row past it is another
 * owner's to take. {@link sweep} deletes expired rows in batches. Every call is bounded by the pool's timeouts and
 * fails as `store_unavailable`.
 */
export class CheckpointTable {
  private readonly table: string;
  /**
   * The names of the statements every park or resume runs, prepared once per pooled connection: PostgreSQL then
   * parses and plans each once, not on every call (the park's write, with its owner check and thread lookup, is the
   * costliest to plan). A name stands for one text on a connection, so it carries the table, as a digest: PostgreSQL
   * cuts names at 63 bytes (NAMEDATALEN), and the table's own name may be that long already.
   */
  private readonly names: Record<StatementKind, string>;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    /** The checkpoint retention, ms, from each write (LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES). */
    private readonly retentionMs: number,
    private readonly observer: CheckpointTableObserver | null = null,
  ) {
    this.table = `${pg.escapeIdentifier(schema)}.checkpoints`;
    this.names = {
      read: statementName('read', this.table),
      'read-refresh': statementName('read-refresh', this.table),
      write: statementName('write', this.table),
    };
  }

  /** The run's latest kept checkpoint of any park, or null (never parked, only bound to a thread, or expired). */
  async latest(runId: string): Promise<CheckpointRow | null> {
    const result = await this.timed('read', () =>
      this.pool.query<RowRecord>(
        `SELECT ${COLUMNS} FROM ${this.table} WHERE run_id = $1 AND kind IS NOT NULL AND expires_at > now()
         ORDER BY written_at DESC, park DESC LIMIT 1`,
        [runId],
      ),
    );
    return rowOf(result.rows[0]);
  }

  /**
   * The checkpoint of park `park` of the run, or null when it is not kept (never written, or past its retention).
   * With `refresh`, reading it also restarts its retention: a resume attempt is a write of the run, so a long chain
   * of retries never outlives the checkpoint it resumes from. A row with more than {@link refreshBelowMs} of its
   * retention left is left as it is — every run answered within half its retention — so that read writes nothing
   * (no new row version, no WAL for its commit to wait on).
   */
  async read(runId: string, park: string, options: { refresh?: boolean } = {}): Promise<CheckpointRow | null> {
    const where = 'run_id = $1 AND park = $2 AND kind IS NOT NULL AND expires_at > now()';
    const result = await this.timed('read', () =>
      options.refresh
        ? this.pool.query<RowRecord>({
            name: this.names['read-refresh'],
            // A data-modifying WITH runs whether or not the query reads it; both parts see the same snapshot.
            text: `WITH refreshed AS (
               UPDATE ${this.table} SET expires_at = now() + $3 * interval '1 millisecond'
               WHERE ${where} AND expires_at < now() + $4::bigint * interval '1 millisecond' RETURNING 1)
             SELECT ${COLUMNS} FROM ${this.table} WHERE ${where}`,
            values: [runId, park, this.retentionMs, refreshBelowMs(this.retentionMs)],
          })
        : this.pool.query<RowRecord>({
            name: this.names.read,
            text: `SELECT ${COLUMNS} FROM ${this.table} WHERE ${where}`,
            values: [runId, park],
          }),
    );
    return rowOf(result.rows[0]);
  }

  /**
   * Keeps `row` as the checkpoint of park `park`, replacing what that park held, and restarts its retention. A null
   * thread keeps the park's own kept thread, else takes the one bound to the run. False (nothing written) when any
   * kept row of the run belongs to another owner.
   */
  async write(runId: string, park: string, row: CheckpointRowInput): Promise<boolean> {
    const t = this.table;
    const result = await this.timed('write', () =>
      this.pool.query({
        name: this.names.write,
        text: `INSERT INTO ${t} AS c (run_id, park, ${COLUMNS}, written_at, expires_at)
         SELECT $1, $2, $3, $4, $5, $6::jsonb, $7,
                coalesce($8::jsonb, (SELECT b.thread FROM ${t} b WHERE b.run_id = $1 AND b.park = '' AND b.expires_at > now())),
                now(), now() + $9 * interval '1 millisecond'
         WHERE NOT EXISTS (
           SELECT 1 FROM ${t} o WHERE o.run_id = $1 AND o.park <> $2 AND o.owner <> $3 AND o.expires_at > now())
         ON CONFLICT (run_id, park) DO UPDATE SET
           owner = EXCLUDED.owner, kind = EXCLUDED.kind, parent_run_id = EXCLUDED.parent_run_id,
           resume = EXCLUDED.resume, state = EXCLUDED.state,
           thread = CASE WHEN c.expires_at > now() THEN coalesce($8::jsonb, c.thread) ELSE EXCLUDED.thread END,
           written_at = now(), expires_at = EXCLUDED.expires_at
         WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now()
         RETURNING 1`,
        values: [
          runId,
          park,
          row.owner,
          row.kind,
          row.parentRunId,
          row.resume,
          row.state === null ? null : Buffer.from(row.state, 'utf8'),
          row.thread,
          this.retentionMs,
        ],
      }),
    );
    return result.rowCount === 1;
  }

  /**
   * Binds the run to `owner` and a chat thread before it parks (its {@link RUN_ROW}): a new row holds only them; a
   * kept row of the same owner gets the new thread and keeps its checkpoint. False (nothing written) when any kept
   * row of the run has another owner.
   */
  async bindThread(runId: string, owner: string, thread: string): Promise<boolean> {
    const t = this.table;
    const result = await this.timed('write', () =>
      this.pool.query(
        `INSERT INTO ${t} AS c (run_id, park, owner, thread, written_at, expires_at)
         SELECT $1, '', $2, $3::jsonb, now(), now() + $4 * interval '1 millisecond'
         WHERE NOT EXISTS (
           SELECT 1 FROM ${t} o WHERE o.run_id = $1 AND o.park <> '' AND o.owner <> $2 AND o.expires_at > now())
         ON CONFLICT (run_id, park) DO UPDATE SET
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

  /** Deletes the row of park `park` of the run: the undoing of a park the run store then refused. */
  async remove(runId: string, park: string): Promise<void> {
    await this.timed('write', () =>
      this.pool.query(`DELETE FROM ${this.table} WHERE run_id = $1 AND park = $2`, [runId, park]),
    );
  }

  /** Deletes the rows of the run's parks other than `park` (its own row, {@link RUN_ROW}, stays). */
  async removeOthers(runId: string, park: string): Promise<void> {
    await this.timed('write', () =>
      this.pool.query(`DELETE FROM ${this.table} WHERE run_id = $1 AND park <> $2 AND park <> ''`, [runId, park]),
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
          `DELETE FROM ${this.table} WHERE (run_id, park) IN (
             SELECT run_id, park FROM ${this.table} WHERE expires_at <= now()
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

function rowOf(row: RowRecord | undefined): CheckpointRow | null {
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
