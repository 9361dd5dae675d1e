#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.js';
import { persistentDevToken } from './dev-token.js';
import { createGateway, type Gateway } from './gateway.js';
import { isClusterUrl, parseClusterUrl } from './store/redis/cluster-url.js';

type Env = Record<string, string | undefined>;
type Role = 'all' | 'serve' | 'worker';

function describeStore(config: Config): string {
  if (config.redisUrl === null)
    return 'in-memory store (sync asks only; set REDIS_URL for async parks and several processes)';
  if (isClusterUrl(config.redisUrl)) {
    const seeds = parseClusterUrl(config.redisUrl).nodes.map((n) => `${n.host}:${n.port}`);
    return `Redis Cluster store (seeds ${seeds.join(', ')})`; // never print the URL's password
  }
  const url = new URL(config.redisUrl);
  return `redis store at ${url.hostname}:${url.port || '6379'}`; // never print the URL's password
}

function printBanner(config: Config, baseUrl: string | null, role: Role, devTokenNote: string | null): void {
  const lines = [`askgate ${role === 'all' ? 'gateway' : role} started on the ${describeStore(config)}`];
  if (baseUrl !== null) lines.push(`askgate listening on ${baseUrl}`);
  if (config.devToken !== null) {
    lines.push('dev mode: ASKGATE_TOKENS is unset, so this one token has every scope (read, write, answer, admin):');
    lines.push(`  ASKGATE_TOKEN=${config.devToken}`);
    if (devTokenNote !== null) lines.push(devTokenNote);
    if (baseUrl !== null) lines.push(`  inbox: ${baseUrl}/inbox#token=${config.devToken}`);
  }
  if (config.publicBaseUrlIsOwn)
    lines.push(
      `links (callback pages, web chat) use ${config.publicBaseUrl}, reachable from this machine only; ` +
        'set INTERACTIONS_PUBLIC_BASE_URL to the origin people reach askgate on',
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function run(role: Role, env: Env): Promise<Gateway> {
  let config: Config;
  let devTokenNote: string | null = null;
  try {
    if (env['ASKGATE_TOKENS'] === undefined && env['ASKGATE_DEV_TOKEN'] === undefined) {
      // Dev mode keeps its token across restarts (a file under the user's state directory, mode 600).
      const kept = persistentDevToken(env);
      env = { ...env, ASKGATE_DEV_TOKEN: kept.token };
      devTokenNote = kept.persisted
        ? `  (kept in ${kept.path} across restarts; delete the file for a new one)`
        : `  (${kept.path} could not be written: a new token at every start; set ASKGATE_DEV_TOKEN to keep one)`;
    }
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`askgate: bad configuration: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (role === 'worker' && config.redisUrl === null) {
    process.stderr.write(
      'askgate: bad configuration: REDIS_URL: askgate worker shares work through Redis; set ' +
        'REDIS_URL (or run `npm start` for one process).\n',
    );
    process.exit(1);
  }
  let gateway: Gateway;
  try {
    gateway = await createGateway(config, { workers: role !== 'serve' });
  } catch (err) {
    // A channel reads its own variables as the gateway builds it: a half-configured one is a bad configuration too.
    if (err instanceof ConfigError) {
      process.stderr.write(`askgate: bad configuration: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const baseUrl = role === 'worker' ? null : await gateway.listen();
  printBanner(config, baseUrl, role, devTokenNote);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'stopping');
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return gateway;
}

/** `npm start`: the HTTP doors and the workers in one process. */
export const runAll = (env: Env = process.env): Promise<Gateway> => run('all', env);
/** `askgate serve`: the HTTP doors alone. */
export const runServe = (env: Env = process.env): Promise<Gateway> => run('serve', env);
/** `askgate worker`: the background workers alone. */
export const runWorker = (env: Env = process.env): Promise<Gateway> => run('worker', env);

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  runAll().catch((err: unknown) => {
    process.stderr.write(`askgate: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
