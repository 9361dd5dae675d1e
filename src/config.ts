import { randomBytes } from 'node:crypto';
import { checkpointConfig, type PostgresCheckpointConfig } from './checkpoint-config.js';
import { ConfigError, type Env, optional } from './config-env.js';
import { isLoopbackHost, loopbackOrigin, parseLinkSecret, parsePublicBaseUrl } from './config-origin.js';
import type { Identity, Scope } from './core/types.js';
import { confirmationsConfig, type ConfirmationsConfig } from './confirmations/config.js';
import { PRESET_NAME } from './confirmations/presets.js';
import { RouteConfigError, parseRoutes, type Route } from './runs/routes.js';
import { DEFAULT_KEY_PREFIX, isShardablePrefix } from './store/keys.js';
import { isClusterUrl, parseClusterUrl } from './store/redis/cluster-url.js';

/**
 * The one place that reads the environment. Every variable askgate reads becomes a typed, validated field;
 * a bad value throws a ConfigError whose message is one line naming the variable and the fix.
 */

// Re-exported so importers keep reading the error from here.
export { ConfigError } from './config-env.js';

export interface Config {
  port: number;
  host: string;
  /** Unset: the in-memory store (sync asks only). */
  redisUrl: string | null;
  /** Key prefix in Redis; the braces make it a Cluster hash tag. */
  redisPrefix: string;
  /**
   * `ASKGATE_SHARDS` (1..64, default 1): how many hash tags questions and runs are spread over; 1 keeps every key
   * under the prefix as before (docs/scaling.md, "Shards").
   */
  shards: number;
  /**
   * How many replicas must confirm an answer's claim (Redis `WAIT`) before it is acknowledged; 0 does not wait.
   * `ASKGATE_REDIS_WAIT_REPLICAS`, default 0 (docs/scaling.md says what waiting costs and buys).
   */
  redisWaitReplicas: number;
  /** How long that WAIT may take, ms. `ASKGATE_REDIS_WAIT_TIMEOUT_MS`, default 1000. */
  redisWaitTimeoutMs: number;
  /** Bearer token → identity. */
  tokens: Map<string, Identity>;
  /** Set when no ASKGATE_TOKENS was given: the one random all-scopes token printed at start. */
  devToken: string | null;
  /** INTERACTIONS_PUBLIC_BASE_URL, or on a loopback HOST (and a fixed PORT) the gateway's own origin. */
  publicBaseUrl: string | null;
  /** The base URL is the gateway's own loopback origin, not one an operator set (the start banner says so). */
  publicBaseUrlIsOwn: boolean;
  /**
   * `ASKGATE_LINK_SECRET`: the key signed action links (`/a/{token}`) are made and checked with, at least 32
   * characters, the same on every process. Unset: channels get no link maker and the door shows every link as not
   * available (docs/action-links.md).
   */
  linkSecret: string | null;
  defaultTimeoutSeconds: number;
  idleTtlSeconds: number;
  retentionWaitingMinutes: number;
  /** `ASKGATE_CHECKPOINT_URL` and its tuning: parked runs' checkpoints in PostgreSQL; null keeps them in Redis. */
  checkpointPostgres: PostgresCheckpointConfig | null;
  callbackRate: { limit: number; windowSeconds: number };
  /** Client addresses are taken from X-Forwarded-For only when the peer is one of these (express `trust proxy`). */
  trustProxy: string | null;
  /** The longest gap between two progress notifications of `ask_human` on `/mcp`, seconds (1..60). */
  mcpProgressSeconds: number;
  /** `ASKGATE_MCP_PRESETS`: the presets each `/mcp` session offers as tools (docs/mcp.md, "Presets as tools"). */
  mcpPresets: string[];
  logLevel: string;
  /**
   * BullMQ lock of an active continuation (ms): a worker that stops renewing it this long (SIGKILLed) is taken for
   * dead, and the continuation runs again on another worker. `ASKGATE_RESUME_LOCK_MS`, default 30000.
   */
  resumeLockMs: number;
  /** First retry delay of a failed continuation (ms), doubled per attempt with jitter. `ASKGATE_RESUME_BACKOFF_MS`, default 1000. */
  resumeBackoffMs: number;
  /**
   * For tests only: how many milliseconds one second of a `remind`/`escalate` schedule lasts, so a test sees reminders
   * 60 s apart in a fraction of that without weakening the rule that they are at least 60 s apart.
   * `ASKGATE_TEST_FOLLOW_UP_SECOND_MS`, default 1000; the process warns at start when it is set.
   */
  testFollowUpSecondMs: number;
  /**
   * `ASKGATE_WEBHOOK_ALLOW_PRIVATE`: resume and route webhooks may reach loopback, private, link-local and metadata
   * addresses (development only). Unset, a literal such address is refused at ask (or config) time and a host name
   * that resolves to one is refused where the send connects.
   */
  webhookAllowPrivate: boolean;
  /**
   * TEST ONLY — `ASKGATE_TEST_HOLD_BEFORE_ENQUEUE=1`: the process freezes right after a claim that settled a run
   * committed, before that run's resume job is enqueued, so the fault suite can SIGKILL it at that exact point
   * (docs/reliability.md). Refused at start under `NODE_ENV=production` (the Docker image sets it).
   */
  testHoldBeforeEnqueue: boolean;
  /** `ASKGATE_ROUTES`: which target a chat message that answers no question reaches (docs/parks.md, "Routes"). */
  routes: Route[];
  /** Confirmations: STRIPE_*, TAI_BRIDGE_CALLBACK_SECRET and ASKGATE_RECONCILE_* (src/confirmations/config.ts). */
  confirmations: ConfirmationsConfig;
  /**
   * A copy of the environment the config was read from. Each channel reads its own variables from it
   * (channels/<name>/config.ts), and webhook verifiers read the secret a question's binding names (`secret_env`) at
   * verify time, so neither needs a config field of its own here.
   */
  env: Readonly<Record<string, string | undefined>>;
}

const SCOPES: readonly Scope[] = ['read', 'write', 'answer', 'admin'];

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) {
    throw new ConfigError(name, `"${raw}" is not a positive whole number; set it to e.g. ${fallback}.`);
  }
  return Number(raw);
}

function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number; set it to e.g. ${fallback}.`);
  return Number(raw);
}

/** Seconds between two progress notifications: a whole number 1..60 (a wait is polled in slices that long). */
function progressSeconds(env: Env, name: string): number {
  const seconds = positiveInt(env, name, 10);
  if (seconds > 60) throw new ConfigError(name, `"${env[name]}" is over 60; set it to a whole number from 1 to 60.`);
  return seconds;
}

/** Comma-separated preset names, each checked as the preset doors check a name; unset or empty is none. */
function presetNames(env: Env, name: string): string[] {
  const names = (env[name] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = names.find((n) => !PRESET_NAME.test(n));
  if (bad !== undefined)
    throw new ConfigError(
      name,
      `"${bad}" is not a preset name (1..100 letters, digits, ".", "_" or "-", starting with a letter or digit); list names separated by commas.`,
    );
  return [...new Set(names)];
}

/** A switch: unset, empty, "0" or "false" is off; "1" or "true" is on; anything else is refused by name. */
function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(name, `"${env[name]}" is not a switch; set it to 1 (on) or leave it unset (off).`);
}

function parseTokens(raw: string): Map<string, Identity> {
  const name = 'ASKGATE_TOKENS';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      name,
      'is not valid JSON; set it to {"<token>": {"identity": "<name>", "scopes": ["read","write","answer"]}}.',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(name, 'must be a JSON object of token → {"identity", "scopes", "webhook_secret"?}.');
  }
  const tokens = new Map<string, Identity>();
  for (const [token, value] of Object.entries(parsed as Record<string, unknown>)) {
    const where = `entry ${tokens.size + 1}`; // never echo the token itself
    if (token.length < 16)
      throw new ConfigError(name, `${where}: a token must be at least 16 characters; use a long random string.`);
    // An unedited copy of askgate.env.example would otherwise serve a publicly known admin token.
    if (token.startsWith('change-me'))
      throw new ConfigError(
        name,
        `${where}: is the placeholder of askgate.env.example; replace it with a long random string (openssl rand -hex 32).`,
      );
    if (value === null || typeof value !== 'object')
      throw new ConfigError(name, `${where}: must be an object with "identity" and "scopes".`);
    const v = value as Record<string, unknown>;
    if (typeof v['identity'] !== 'string' || v['identity'] === '') {
      throw new ConfigError(name, `${where}: "identity" must be a non-empty string.`);
    }
    const scopes = v['scopes'];
    if (!Array.isArray(scopes) || scopes.some((s) => !SCOPES.includes(s as Scope))) {
      throw new ConfigError(name, `${where}: "scopes" must be a list drawn from "read", "write", "answer", "admin".`);
    }
    const secret = v['webhook_secret'];
    if (secret !== undefined && (typeof secret !== 'string' || !secret.startsWith('whsec_'))) {
      throw new ConfigError(
        name,
        `${where}: "webhook_secret" must be a Standard Webhooks secret starting with "whsec_".`,
      );
    }
    tokens.set(token, {
      name: v['identity'] as string,
      scopes: new Set(scopes as Scope[]),
      webhookSecret: (secret as string | undefined) ?? null,
    });
  }
  if (tokens.size === 0) throw new ConfigError(name, 'names no token; give at least one, or unset it for dev mode.');
  return tokens;
}

function parseRate(raw: string | null): { limit: number; windowSeconds: number } {
  const name = 'INTERACTIONS_CALLBACK_RATE';
  if (raw === null) return { limit: 60, windowSeconds: 60 };
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  if (!m || Number(m[1]) <= 0 || Number(m[2]) <= 0) {
    throw new ConfigError(name, `"${raw}" is not N/SECONDS; set it to e.g. 60/60.`);
  }
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}

function parseRedisUrl(raw: string | null): string | null {
  if (raw === null) return null;
  if (isClusterUrl(raw)) {
    try {
      parseClusterUrl(raw);
    } catch (error) {
      throw new ConfigError('REDIS_URL', (error as Error).message);
    }
    return raw;
  }
  if (!/^rediss?:\/\//.test(raw))
    throw new ConfigError(
      'REDIS_URL',
      'must start with redis://, rediss:// or redis+cluster://, ' +
        'e.g. redis://127.0.0.1:6379 or redis+cluster://10.0.0.1:6379,10.0.0.2:6379.',
    );
  return raw;
}

/**
 * On a Redis Cluster every key of one Lua step must hash to one slot, and BullMQ's queue keys too: the prefix must
 * carry a hash tag (`{…}`), as the default does.
 */
function parseRedisPrefix(raw: string | null, redisUrl: string | null): string {
  const prefix = raw ?? DEFAULT_KEY_PREFIX;
  if (redisUrl !== null && isClusterUrl(redisUrl) && !/\{[^{}]+\}/.test(prefix)) {
    throw new ConfigError(
      'ASKGATE_REDIS_PREFIX',
      `"${prefix}" has no hash tag, which a Redis Cluster needs (every key of one step in one slot); ` +
        'wrap a name in braces, e.g. {askgate}:.',
    );
  }
  return prefix;
}

/** The most shards a deployment may have: enough to spread over 64 masters, few enough to merge per list page. */
export const MAX_SHARDS = 64;

/**
 * `ASKGATE_SHARDS`: how many hash tags questions and runs are spread over (docs/scaling.md). More than one needs a
 * prefix of the form `{T}:` (shard k's prefix is `{T:k}:`), and a store: the memory store has one shard only.
 */
function parseShards(raw: string | null, prefix: string, redisUrl: string | null): number {
  const name = 'ASKGATE_SHARDS';
  if (raw === null) return 1;
  const text = raw.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_SHARDS)
    throw new ConfigError(
      name,
      `"${raw}" is not a whole number from 1 to ${MAX_SHARDS}; set it to e.g. 12, or unset it for 1.`,
    );
  const shards = Number(text);
  if (shards === 1) return 1;
  if (redisUrl === null)
    throw new ConfigError(
      name,
      `is ${shards}, but without REDIS_URL the in-memory store has one shard; set REDIS_URL or unset ASKGATE_SHARDS.`,
    );
  if (!isShardablePrefix(prefix))
    throw new ConfigError(
      name,
      `is ${shards}, which needs ASKGATE_REDIS_PREFIX of the form {name}: (shard k gets {name:k}:), ` +
        `and it is "${prefix}"; use e.g. {askgate}: or set ASKGATE_SHARDS=1.`,
    );
  return shards;
}

/** A route's turn and late reply travel as BullMQ jobs, and its run parks: both need Redis. */
function routesOf(
  raw: string | null,
  tokens: Map<string, Identity>,
  redisUrl: string | null,
  allowPrivateWebhooks: boolean,
): Route[] {
  if (raw === null) return [];
  let routes: Route[];
  try {
    routes = parseRoutes(raw, tokens, allowPrivateWebhooks);
  } catch (err) {
    if (!(err instanceof RouteConfigError)) throw err;
    // parseRoutes names the variable (and the route) itself; strip the name so ConfigError does not repeat it.
    throw new ConfigError('ASKGATE_ROUTES', err.message.replace(/^ASKGATE_ROUTES:? ?/, ''));
  }
  if (routes.length > 0 && redisUrl === null)
    throw new ConfigError(
      'ASKGATE_ROUTES',
      'needs REDIS_URL: a turn and its late reply are queued jobs, and its run parks there.',
    );
  return routes;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string | null): string {
  const level = (raw ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError('LOG_LEVEL', `"${raw}" is not a level; use one of ${LOG_LEVELS.join(', ')}.`);
  return level;
}

export function loadConfig(env: Env = process.env): Config {
  // PORT=0 asks the OS for a free port (tests use it); the bound port is printed at start.
  const port = env['PORT'] === '0' ? 0 : positiveInt(env, 'PORT', 8080);
  if (port > 65535) throw new ConfigError('PORT', `${port} is not a port; use 1..65535.`);
  const tokensRaw = optional(env, 'ASKGATE_TOKENS');
  let tokens: Map<string, Identity>;
  let devToken: string | null = null;
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  if (tokensRaw === null) {
    // Dev mode hands one all-scopes token to whoever reads the banner; it must never face a network.
    if (!isLoopbackHost(host)) {
      throw new ConfigError(
        'ASKGATE_TOKENS',
        `is unset, so askgate would start in dev mode (one all-scopes token) listening on ${host}, ` +
          `which is not a loopback address; set ASKGATE_TOKENS, or HOST=127.0.0.1.`,
      );
    }
    devToken = optional(env, 'ASKGATE_DEV_TOKEN') ?? randomBytes(24).toString('base64url');
    if (devToken.length < 16) throw new ConfigError('ASKGATE_DEV_TOKEN', 'must be at least 16 characters.');
    tokens = new Map([[devToken, { name: 'dev', scopes: new Set(SCOPES), webhookSecret: null }]]);
  } else {
    tokens = parseTokens(tokensRaw);
  }
  const redisUrl = parseRedisUrl(optional(env, 'REDIS_URL'));
  const prefix = parseRedisPrefix(optional(env, 'ASKGATE_REDIS_PREFIX'), redisUrl);
  const shards = parseShards(optional(env, 'ASKGATE_SHARDS'), prefix, redisUrl);
  const webhookAllowPrivate = flag(env, 'ASKGATE_WEBHOOK_ALLOW_PRIVATE');
  const testHoldBeforeEnqueue = flag(env, 'ASKGATE_TEST_HOLD_BEFORE_ENQUEUE');
  if (testHoldBeforeEnqueue && env['NODE_ENV'] === 'production')
    throw new ConfigError(
      'ASKGATE_TEST_HOLD_BEFORE_ENQUEUE',
      'is a fault-injection hook of the test suite (it freezes the process after a claim); unset it in production.',
    );
  const testFollowUpSecondMs = positiveInt(env, 'ASKGATE_TEST_FOLLOW_UP_SECOND_MS', 1_000);
  if (testFollowUpSecondMs !== 1_000 && env['NODE_ENV'] === 'production')
    throw new ConfigError(
      'ASKGATE_TEST_FOLLOW_UP_SECOND_MS',
      "is the test suite's clock for reminders and escalations (it shortens every second); unset it in production.",
    );
  const publicBaseUrl = parsePublicBaseUrl(optional(env, 'INTERACTIONS_PUBLIC_BASE_URL')) ?? loopbackOrigin(host, port);
  return {
    port,
    host,
    redisUrl,
    redisPrefix: prefix,
    shards,
    redisWaitReplicas: nonNegativeInt(env, 'ASKGATE_REDIS_WAIT_REPLICAS', 0),
    redisWaitTimeoutMs: positiveInt(env, 'ASKGATE_REDIS_WAIT_TIMEOUT_MS', 1000),
    tokens,
    devToken,
    publicBaseUrl,
    publicBaseUrlIsOwn: optional(env, 'INTERACTIONS_PUBLIC_BASE_URL') === null && publicBaseUrl !== null,
    linkSecret: parseLinkSecret(optional(env, 'ASKGATE_LINK_SECRET'), publicBaseUrl),
    defaultTimeoutSeconds: positiveInt(env, 'INTERACTIONS_DEFAULT_TIMEOUT_SECONDS', 300),
    idleTtlSeconds: positiveInt(env, 'INTERACTIONS_IDLE_TTL_SECONDS', 86_400),
    retentionWaitingMinutes: positiveInt(env, 'LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES', 10_080),
    checkpointPostgres: checkpointConfig(env, redisUrl),
    callbackRate: parseRate(optional(env, 'INTERACTIONS_CALLBACK_RATE')),
    trustProxy: optional(env, 'ASKGATE_TRUST_PROXY'),
    mcpProgressSeconds: progressSeconds(env, 'ASKGATE_MCP_PROGRESS_SECONDS'),
    mcpPresets: presetNames(env, 'ASKGATE_MCP_PRESETS'),
    logLevel: parseLogLevel(optional(env, 'LOG_LEVEL')),
    resumeLockMs: positiveInt(env, 'ASKGATE_RESUME_LOCK_MS', 30_000),
    resumeBackoffMs: positiveInt(env, 'ASKGATE_RESUME_BACKOFF_MS', 1_000),
    testFollowUpSecondMs,
    webhookAllowPrivate,
    testHoldBeforeEnqueue,
    routes: routesOf(optional(env, 'ASKGATE_ROUTES'), tokens, redisUrl, webhookAllowPrivate),
    confirmations: confirmationsConfig(env, (variable, message) => new ConfigError(variable, message)),
    env: Object.freeze({ ...env }),
  };
}
