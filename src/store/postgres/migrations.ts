import pg from 'pg';
import { ConfigError } from '../../config-env.js';

/**
 * The checkpointer's schema, as numbered steps. A step is never edited once released: a change is a new step. Each
 * names its tables through `s`, the quoted schema (ASKGATE_CHECKPOINT_SCHEMA), so one database can hold several
 * deployments side by side.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: (s: string) => string }[] = [
  {
    version: 1,
    name: 'checkpoints',
    // One row per park (park: the reference the run store keeps; '' for the row the Checkpoints port itself writes
    // and binds threads to), so a refused second park of a parked run never touches the checkpoint that run resumes
    // from. state is the JSON text of the checkpoint state as handed in, kept as bytes so it comes back byte for byte
    // (jsonb would reorder keys and drop duplicates; text would depend on the database's encoding). A row whose kind
    // is null holds only a chat thread bound before its run parked. expires_at is set by the database's clock.
    sql: (s) => `
      CREATE TABLE ${s}.checkpoints (
        run_id text NOT NULL,
        park text NOT NULL,
        owner text NOT NULL,
        kind text CHECK (kind IN ('tool', 'agent')),
        parent_run_id text,
        resume jsonb,
        state bytea,
        thread jsonb,
        written_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (run_id, park)
      );
      CREATE INDEX checkpoints_expires_at ON ${s}.checkpoints (expires_at);
    `,
  },
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** First key of the migration's advisory lock ('askg'); the second is the schema name's hash. */
const LOCK_CLASS = 0x61736b67;

/** What a run of {@link migrate} did: the version found, the version left, and the steps applied. */
export interface MigrationResult {
  from: number;
  to: number;
  applied: number[];
}

/**
 * Brings `schema` to {@link SCHEMA_VERSION}: one transaction under a transaction-scoped advisory lock on the schema's
 * name, so processes starting at once apply each step once (the others wait, then find nothing to do) and a step that
 * fails leaves nothing half-applied. Running it again changes nothing. A schema newer than this code (a newer askgate
 * migrated it) is refused with a ConfigError naming ASKGATE_CHECKPOINT_URL, before anything is written.
 */
export async function migrate(pool: pg.Pool, schema: string): Promise<MigrationResult> {
  const s = pg.escapeIdentifier(schema);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
      // CREATE SCHEMA checks the CREATE privilege on the database even when the schema exists: look first, so a
      // role that owns a schema an administrator made for it needs no more than that.
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const found = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${s}.schema_migrations`,
      );
      const from = found.rows[0]?.version ?? 0;
      if (from > SCHEMA_VERSION) {
        throw new ConfigError(
          'ASKGATE_CHECKPOINT_URL',
          `the checkpoint schema "${schema}" is at version ${from}, newer than this askgate knows (${SCHEMA_VERSION}): ` +
            'a newer askgate migrated it. Run that version (or newer), or point ASKGATE_CHECKPOINT_URL or ' +
            'ASKGATE_CHECKPOINT_SCHEMA at a database this version created.',
        );
      }
      const applied: number[] = [];
      for (const step of MIGRATIONS) {
        if (step.version <= from) continue;
        await client.query(step.sql(s));
        await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [
          step.version,
          step.name,
        ]);
        applied.push(step.version);
      }
      await client.query('COMMIT');
      return { from, to: Math.max(from, SCHEMA_VERSION), applied };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is gone: the pool must not hand it out again
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}
