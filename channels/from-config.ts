import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { ChannelPlugin } from './contract.js';
import { DiscordChannel } from './discord/plugin.js';
import { SlackChannel } from './slack/plugin.js';
import { TelegramChannel } from './telegram/plugin.js';
import { WebChatChannel } from './web/plugin.js';
import { TwilioChannel } from './twilio/plugin.js';
import { WhatsAppChannel } from './whatsapp/plugin.js';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/observability/logger.js';

/**
 * The web chat's link-signing key, derived from the configured bearer tokens: every process of a deployment shares
 * ASKGATE_TOKENS, so they agree on it without another secret to distribute; rotating the tokens revokes the links.
 */
export function webChatSecret(config: Pick<Config, 'tokens'>): string {
  return createHash('sha256')
    .update(`askgate web chat v1\n${[...config.tokens.keys()].sort().join('\n')}`)
    .digest('base64url');
}

/**
 * The channels this gateway runs, from configuration: a channel whose variables are absent is not built, so asking on
 * it is an unknown channel (CONTRACT.md). The `web` chat needs no platform and is always on.
 */
export function channelsFromConfig(
  config: Pick<
    Config,
    'telegram' | 'slack' | 'whatsapp' | 'twilio' | 'discord' | 'tokens' | 'publicBaseUrl' | 'redisUrl' | 'redisPrefix'
  >,
  logger: Logger,
  doors: { requireWrite?: RequestHandler } = {},
): ChannelPlugin[] {
  const plugins: ChannelPlugin[] = [];
  if (config.telegram !== null) {
    // On Redis every process sending as the bot shares one budget; alone (in-memory store) it paces itself.
    const sharedPacing = config.redisUrl === null ? null : { redisUrl: config.redisUrl, prefix: config.redisPrefix };
    plugins.push(new TelegramChannel({ ...config.telegram, sharedPacing, logger }));
  }
  if (config.slack !== null) plugins.push(new SlackChannel({ ...config.slack, logger }));
  if (config.whatsapp !== null) plugins.push(new WhatsAppChannel({ ...config.whatsapp, logger }));
  if (config.twilio !== null)
    plugins.push(new TwilioChannel({ ...config.twilio, publicBaseUrl: config.publicBaseUrl, logger }));
  if (config.discord !== null) plugins.push(new DiscordChannel(config.discord));
  plugins.push(new WebChatChannel({ secret: webChatSecret(config), publicBaseUrl: config.publicBaseUrl, ...doors }));
  return plugins;
}
