import { startTestGateway, type TestGateway } from './gateway.js';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';

/**
 * A redis-server (startRedisServer: REDIS_URL's when set) and an in-process gateway on it under `prefix`, with two
 * callers: `writer` (read, write, answer) and `reader` (read only), the pair the fast-door tests compare each door's
 * refusals with. If the gateway does not start, the server is stopped here, since the caller never got its handle.
 */
export async function startWriterReaderGateway(
  prefix: string,
  writer: string,
  reader: string,
): Promise<{ redis: RedisServerHandle; gw: TestGateway }> {
  const redis = await startRedisServer();
  try {
    const gw = await startTestGateway({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: prefix,
      ASKGATE_TOKENS: JSON.stringify({
        [writer]: { identity: 'writer', scopes: ['read', 'write', 'answer'] },
        [reader]: { identity: 'reader', scopes: ['read'] },
      }),
    });
    return { redis, gw };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}
