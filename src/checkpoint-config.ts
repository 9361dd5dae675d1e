import { ConfigError, type Env, optional } from './config-env.js';

/** Where parked runs' checkpoints live when it is PostgreSQL (`ASKGATE_CHECKPOINT_URL`); docs/parks.md. */
export interface PostgresCheckpointConfig {
  /** `postgres://…` or `postgresql://…`, as given (it may carry a password: never log it). */
  url: string;
  /** `ASKGATE_CHECKPOINT_SCHEMA`, default `askgate`: the schema askgate creates and migrates its tables in. */
  schema: string;
  /** `ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS`, default 5000: the longest one statement (or connecting) may take. */
  statementTimeoutMs: number;
  /** `ASKGATE_CHECKPOINT_POOL_SIZE`, default 10: the most connections one process opens. */
  poolSize: number;
}

/** A PostgreSQL identifier askgate creates unquoted-looking: lower case, digits and _, not starting with a digit. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function wholeNumber(env: Env, name: string, fallback: number, max: number): number {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > max)
    throw new ConfigError(name, `"${raw}" is not a whole number from 1 to ${max}; set it to e.g. ${fallback}.`);
  return Number(raw);
}

/**
 * The checkpointer of parked runs: null for Redis (the default), else PostgreSQL, which needs Redis beside it (the
 * park index, questions, claims and queues stay there).
 */
export function checkpointConfig(env: Env, redisUrl: string | null): PostgresCheckpointConfig | null {
  const postgres = postgresCheckpointConfig(env);
  if (postgres !== null && redisUrl === null)
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_URL',
      'needs REDIS_URL: parked runs keep their park index, questions, claims and queues in Redis, and only their ' +
        'checkpoints in PostgreSQL; set REDIS_URL too, or unset ASKGATE_CHECKPOINT_URL.',
    );
  return postgres;
}

/**
 * `ASKGATE_CHECKPOINT_*` alone (what `askgate migrate` reads): null when the URL is unset. The URL is checked for its
 * form only (reaching the database is the start's job); an error never echoes it, since it may hold a password.
 */
export function postgresCheckpointConfig(env: Env): PostgresCheckpointConfig | null {
  const url = optional(env, 'ASKGATE_CHECKPOINT_URL');
  const tuned = [
    'ASKGATE_CHECKPOINT_SCHEMA',
    'ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS',
    'ASKGATE_CHECKPOINT_POOL_SIZE',
  ];
  if (url === null) {
    const stray = tuned.find((name) => optional(env, name) !== null);
    if (stray !== undefined)
      throw new ConfigError(
        stray,
        'is set but ASKGATE_CHECKPOINT_URL is not, so checkpoints stay in Redis and it has no effect; ' +
          'set ASKGATE_CHECKPOINT_URL=postgres://… or unset it.',
      );
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_URL',
      'is not a URL; set it to postgres://user:password@host:5432/database.',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_URL',
      `must start with postgres:// or postgresql:// (it starts with ${parsed.protocol}//); ` +
        'unset it to keep checkpoints in Redis.',
    );
  if (parsed.hostname === '' && !parsed.searchParams.has('host'))
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_URL',
      'names no host; set it to postgres://user:password@host:5432/database.',
    );
  const schema = optional(env, 'ASKGATE_CHECKPOINT_SCHEMA') ?? 'askgate';
  if (!SCHEMA_NAME.test(schema))
    throw new ConfigError(
      'ASKGATE_CHECKPOINT_SCHEMA',
      `"${schema}" is not a schema name askgate accepts: lower-case letters, digits and _, at most 63, ` +
        'not starting with a digit; e.g. askgate.',
    );
  return {
    url,
    schema,
    statementTimeoutMs: wholeNumber(env, 'ASKGATE_CHECKPOINT_STATEMENT_TIMEOUT_MS', 5_000, 600_000),
    poolSize: wholeNumber(env, 'ASKGATE_CHECKPOINT_POOL_SIZE', 10, 1_000),
  };
}
