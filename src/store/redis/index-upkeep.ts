import { AskgateError } from '../../core/errors.js';
import type { Keys } from '../keys.js';
import type { ScriptClient } from './scripts/index.js';

/**
 * The Redis store's upkeep of its connection and indexes, kept apart from the transitions in redis-store.ts.
 */

/**
 * Moves index members written before the bucketed pending list and deadline index into buckets
 * (scripts/migrate-indexes-3.lua). A store without any only scans its two index zsets (one member per 64 asks).
 */
export async function migrateIndexes(client: ScriptClient, keys: Keys): Promise<void> {
  for (const pass of ['p', 'd'] as const) {
    let cursor = '0';
    do {
      [cursor] = await client.askgateMigrateIndexes(
        keys.pending,
        keys.deadlines,
        keys.seq,
        pass,
        cursor,
        keys.interactionPrefix,
      );
    } while (cursor !== '0');
  }
}

/** PING with a bound: rejects with `store_unavailable` when not connected or no PONG within `timeoutMs`. */
export async function pingWithin(
  client: ScriptClient,
  timeoutMs: number,
  run: <T>(call: () => Promise<T>) => Promise<T>,
): Promise<void> {
  // While ioredis reconnects it would queue the PING; a readiness probe wants the answer now.
  if (client.status !== 'ready') {
    throw new AskgateError('store_unavailable', `Redis is not connected (connection ${client.status}).`);
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AskgateError('store_unavailable', `Redis did not answer PING within ${timeoutMs} ms.`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([run(() => client.ping()), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
