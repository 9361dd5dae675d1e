import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envGroup, optionalEnv } from '../../channels/env.js';
import { outcomeLine } from '../../channels/outcome.js';
import { CHANNEL_MODULES, channelsFromConfig } from '../../channels/registration/from-config.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { channelSettings } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';
import { MemoryChannelState } from '../../src/store/memory-channel-state.js';

const CHANNELS = new URL('../../channels/', import.meta.url);

/** Channels are installed by one line each and built from configuration by their own module. */
describe('channel registration', () => {
  it('installs the module of every channel folder once, under the folder’s name', () => {
    const folders = readdirSync(CHANNELS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/channel.ts`, CHANNELS)))
      .map((entry) => entry.name)
      .sort();
    // Read from the folders, so a new channel needs no line here: a folder without its registration line, or a line
    // without its folder (or under another name), fails.
    expect(folders).toContain('web');
    expect(CHANNEL_MODULES.map((m) => m.name).sort()).toEqual(folders);
  });

  it('builds only the channels whose variables are set; the web chat is always on', async () => {
    const logger = createLogger('silent');
    const build = (env: Record<string, string>) =>
      channelsFromConfig(channelSettings(loadConfig(env)), logger, new MemoryChannelState());
    expect(build({}).map((p) => p.name)).toEqual(['web']);
    const withTelegram = build({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: 'secret-secret' });
    expect(withTelegram.map((p) => p.name).sort()).toEqual(['telegram', 'web']);
    await Promise.all(withTelegram.map((p) => p.stop?.()));
    const withDiscord = build({
      DISCORD_BOT_TOKEN: 'token',
      DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
      DISCORD_APPLICATION_ID: '1',
    });
    expect(withDiscord.map((p) => p.name).sort()).toEqual(['discord', 'web']);
    await Promise.all(withDiscord.map((p) => p.stop?.()));
    expect(() => build({ TELEGRAM_BOT_TOKEN: '1:abc' })).toThrow(/^TELEGRAM_WEBHOOK_SECRET: is required/);
  });

  it('names where an answer came from with the words of the channel it came on, and of the doors', () => {
    const answered = (surface: string, answeredBy: string) =>
      outcomeLine({
        status: 'answered',
        answer_format: 'confirm',
        result: { answer: true, answered_by: answeredBy, answered_at: '2026-01-01T00:00:00Z', surface },
      } as Parameters<typeof outcomeLine>[0]);
    expect(answered('telegram', 'telegram:42')).toBe('✅ Approved by telegram:42 on Telegram');
    expect(answered('web', 'web:ada')).toBe('✅ Approved by web:ada in the web chat');
    expect(answered('twilio', 'twilio:+15550001111')).toBe('✅ Approved by twilio:+15550001111 by SMS');
    expect(answered('twilio', 'twilio:whatsapp:+15550001111')).toBe(
      '✅ Approved by twilio:whatsapp:+15550001111 on WhatsApp (Twilio)',
    );
    expect(answered('inbox', 'ada')).toBe('✅ Approved by ada in the inbox');
    expect(answered('acme', 'acme:1')).toBe('✅ Approved by acme:1 on acme');
    // Every installed channel's own words, as its module declares them: none falls back to "on <name>".
    for (const module of CHANNEL_MODULES) expect(answered(module.name, `${module.name}:1`)).not.toMatch(/ on [a-z]+$/);
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
