import { describe, expect, it } from 'vitest';
import { envGroup, optionalEnv } from '../../channels/env.js';
import { CHANNEL_MODULES, channelsFromConfig } from '../../channels/from-config.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';

/** Channels are installed by one line each and built from configuration by their own module. */
describe('channel registration', () => {
  it('installs every channel module once, by name', () => {
    const names = CHANNEL_MODULES.map((m) => m.name).sort();
    expect(names).toEqual(['discord', 'slack', 'telegram', 'twilio', 'web', 'whatsapp']);
  });

  it('builds only the channels whose variables are set; the web chat is always on', async () => {
    const logger = createLogger('silent');
    const bare = channelsFromConfig(loadConfig({}), logger);
    expect(bare.map((p) => p.name)).toEqual(['web']);
    const withTelegram = channelsFromConfig(
      loadConfig({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: 'secret-secret' }),
      logger,
    );
    expect(withTelegram.map((p) => p.name).sort()).toEqual(['telegram', 'web']);
    await Promise.all(withTelegram.map((p) => p.stop?.()));
    const withDiscord = channelsFromConfig(
      loadConfig({ DISCORD_BOT_TOKEN: 'token', DISCORD_PUBLIC_KEY: 'ab'.repeat(32), DISCORD_APPLICATION_ID: '1' }),
      logger,
    );
    expect(withDiscord.map((p) => p.name).sort()).toEqual(['discord', 'web']);
    await Promise.all(withDiscord.map((p) => p.stop?.()));
  });

  it('reads a channel’s own variables all or nothing, naming the missing one', () => {
    const build = (env: Record<string, string>) =>
      envGroup(env, ['ACME_TOKEN', 'ACME_SECRET'], (get) => ({
        token: get('ACME_TOKEN'),
        region: optionalEnv(env, 'ACME_REGION') ?? 'eu',
      }));
    expect(build({})).toBeNull();
    expect(build({ ACME_TOKEN: 't', ACME_SECRET: 's' })).toEqual({ token: 't', region: 'eu' });
    expect(() => build({ ACME_TOKEN: 't', ACME_SECRET: '' })).toThrow(ConfigError);
    expect(() => build({ ACME_TOKEN: 't' })).toThrow(/ACME_SECRET: is required with ACME_TOKEN/);
  });
});
