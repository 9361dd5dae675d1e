import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';

export interface TestGateway {
  url: string;
  token: string;
  gateway: Gateway;
  close(): Promise<void>;
}

/**
 * An in-process gateway on a free loopback port: the in-memory store unless `env.REDIS_URL` is given.
 * Dev mode (one all-scopes token) unless `env.ASKGATE_TOKENS` is given, in which case `token` is its first token.
 * `options.logger` replaces the silent logger, for a test that reads what the gateway logs.
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  options: GatewayOptions = {},
): Promise<TestGateway> {
  // The suite's webhook receivers listen on 127.0.0.1; test/park/outbound-pin.test.ts turns this off to test the pin.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
    ...env,
  });
  const gateway = await createGateway(config, { logger: createLogger(config.logLevel), ...options });
  const url = await gateway.listen();
  const token = config.devToken ?? ([...config.tokens.keys()][0] as string);
  return { url, token, gateway, close: () => gateway.close() };
}
