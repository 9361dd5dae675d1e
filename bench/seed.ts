import { loadConfig } from '../src/config.js';
import { createGateway, type Gateway } from '../src/gateway.js';
import type { Identity } from '../src/core/types.js';
import { BENCH_TOKEN } from './processes.js';

/**
 * An in-process gateway without HTTP or workers, used to write questions straight through the service (validation,
 * record building, the store's create script — the real path minus HTTP). Seeding is never timed; doing it
 * in-process keeps the untimed part of a benchmark short.
 */
export interface Seeder {
  gateway: Gateway;
  identity: Identity;
  ask(body: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function openSeeder(redisUrl: string, env: Record<string, string> = {}): Promise<Seeder> {
  const config = loadConfig({
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'silent',
    ASKGATE_TOKENS: JSON.stringify({ [BENCH_TOKEN]: { identity: 'bench', scopes: ['read', 'write', 'answer'] } }),
    ...env,
  });
  const gateway = await createGateway(config, { workers: false });
  const identity = config.tokens.get(BENCH_TOKEN) as Identity;
  return {
    gateway,
    identity,
    async ask(body) {
      const record = await gateway.service.ask(body, identity);
      return record.id;
    },
    close: () => gateway.close(),
  };
}
