import pg from 'pg';
import { AskgateError } from '../../core/errors.js';

/** Options of {@link openCheckpointPool}. */
export interface CheckpointPoolOptions {
  /** `postgres://user:password@host:port/database` (ASKGATE_CHECKPOINT_URL). */
  url: string;
  /** How long one statement may run on the server, ms (its `statement_timeout`); the client gives up 1 s later. */
  statementTimeoutMs: number;
  /** The most connections this process opens. */
  max: number;
  /** Told about an error of an idle connection (the server restarted, the network dropped it). */
  onIdleError: (error: Error) => void;
  /** `application_name` of every connection, so an operator finds askgate's sessions in pg_stat_activity. */
  applicationName?: string;
}

/**
 * The one pool of the checkpointer's PostgreSQL connections (node-postgres). An error on an idle connection — a
 * restarted server, a dropped socket — would be an unhandled 'error' event that kills the process; the pool's
 * handler takes it instead, and the pool opens a new connection on the next query. Every statement is bounded on
 * both sides: `statement_timeout` on the server, `query_timeout` on the client (a server that stopped answering
 * without closing the socket), and connecting is bounded too, so a caller gets `store_unavailable` rather than a wait.
 */
export function openCheckpointPool(options: CheckpointPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    application_name: options.applicationName ?? 'askgate',
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 1_000,
    connectionTimeoutMillis: options.statementTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  pool.on('error', (error) => options.onIdleError(error));
  return pool;
}

/**
 * The URL with its password replaced, for messages and logs: `postgres://askgate:***@db:5432/askgate`. A URL that
 * does not parse is shown as its scheme only, since the password could be anywhere in it.
 */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return `${url.split(':')[0] ?? 'postgres'}://…`;
  }
}

/**
 * Runs one call against PostgreSQL, turning a connection or server failure into `store_unavailable` (503 with
 * Retry-After at the doors). The message names the variable, never the password.
 */
export async function postgresCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AskgateError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AskgateError(
      'store_unavailable',
      `the checkpoint store (PostgreSQL, ASKGATE_CHECKPOINT_URL) failed: ${reason}`,
      { cause: error },
    );
  }
}
