import type { PostgresCheckpointConfig } from '../checkpoint-config.js';
import { ConfigError } from '../config-env.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { CheckpointTable } from '../store/postgres/checkpoint-table.js';
import { PostgresCheckpoints } from '../store/postgres/checkpoints.js';
import { migrate } from '../store/postgres/migrations.js';
import { openCheckpointPool, redactPostgresUrl } from '../store/postgres/pool.js';

/** How often a worker process deletes checkpoints past their retention. */
const SWEEP_INTERVAL_MS = 60_000;

/** The PostgreSQL checkpointer of a process, built and migrated: its store, its readiness check, its close. */
export interface PostgresCheckpointer {
  checkpoints: PostgresCheckpoints;
  readiness: { name: 'postgres'; ping(): Promise<void> };
  close(): Promise<void>;
}

/**
 * Opens the pool of ASKGATE_CHECKPOINT_URL, migrates the schema (every start does: safe when several processes start
 * at once, and a schema newer than this code stops the start naming the variable), and in a process that runs
 * workers sweeps expired checkpoints once a minute. A database that cannot be reached at start stops the start too:
 * a gateway that could not park would otherwise look ready.
 */
export async function openPostgresCheckpointer(
  config: PostgresCheckpointConfig,
  retentionMs: number,
  metrics: Metrics,
  logger: Logger,
  workers: boolean,
): Promise<PostgresCheckpointer> {
  const pool = openCheckpointPool({
    url: config.url,
    statementTimeoutMs: config.statementTimeoutMs,
    max: config.poolSize,
    onIdleError: (error) =>
      // An idle connection's error (the server restarted, the network dropped it): the pool opens a new one.
      logger.warn({ err: error.message }, 'PostgreSQL checkpoint connection lost while idle; reconnecting on next use'),
  });
  try {
    const result = await migrate(pool, config.schema);
    if (result.applied.length > 0)
      logger.info({ schema: config.schema, from: result.from, to: result.to }, 'checkpoint schema migrated');
  } catch (error) {
    await pool.end();
    if (error instanceof ConfigError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_URL',
      `cannot reach PostgreSQL at ${redactPostgresUrl(config.url)} to create or migrate the checkpoint schema ` +
        `"${config.schema}": ${reason}`,
    );
  }
  const table = new CheckpointTable(pool, config.schema, retentionMs, {
    read: (seconds) => metrics.checkpointSeconds.observe({ op: 'read' }, seconds),
    write: (seconds) => metrics.checkpointSeconds.observe({ op: 'write' }, seconds),
    swept: (rows) => metrics.checkpointsSwept.inc(rows),
  });
  let sweeping: Promise<unknown> | null = null;
  const sweeper = workers
    ? setInterval(() => {
        if (sweeping !== null) return;
        sweeping = table
          .sweep()
          .catch((error: unknown) =>
            logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'checkpoint sweep failed'),
          )
          .finally(() => {
            sweeping = null;
          });
      }, SWEEP_INTERVAL_MS)
    : null;
  sweeper?.unref();
  return {
    checkpoints: new PostgresCheckpoints(table),
    readiness: { name: 'postgres', ping: () => table.ping() },
    async close() {
      if (sweeper !== null) clearInterval(sweeper);
      await sweeping;
      await pool.end();
    },
  };
}
