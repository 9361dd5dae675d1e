import { AskgateError } from '../../core/errors.js';
import type { ScriptClient } from './scripts/index.js';

/** The Redis store's upkeep of its connection, kept apart from the transitions in redis-store.ts. */

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
