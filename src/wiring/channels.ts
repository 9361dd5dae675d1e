import { createHash } from 'node:crypto';
import type { ChannelPlugin } from '../../channels/contract.js';
import type { ChannelSettings } from '../../channels/registration/from-config.js';
import { ConfigError, type Config } from '../config.js';
import type { Logger } from '../observability/logger.js';

/**
 * The composition root's channel side that needs no part of the gateway built: what the channels read of the
 * config, the start-time check of the routes against the channels built, and stopping them. Only gateway.ts imports
 * it; the channels themselves are built from the registration list (channels/registration/).
 */

/**
 * What the channels read of `config`: the environment (each reads its own variables), the public base URL, and keys
 * derived from the bearer tokens — every process of a deployment shares ASKGATE_TOKENS, so they agree on a key
 * without another secret to distribute, and rotating the tokens rotates it. The tokens themselves stay here.
 */
export function channelSettings(config: Pick<Config, 'env' | 'publicBaseUrl' | 'tokens'>): ChannelSettings {
  const tokens = [...config.tokens.keys()].sort().join('\n');
  return {
    env: config.env,
    publicBaseUrl: config.publicBaseUrl,
    signingKey: (purpose) => createHash('sha256').update(`askgate ${purpose}\n${tokens}`).digest('base64url'),
  };
}

/** A route on a channel this gateway does not run (or that cannot converse) could never answer: refuse to start. */
export function checkRouteChannels(config: Config, plugins: readonly ChannelPlugin[]): void {
  config.routes.forEach((route, i) => {
    const plugin = plugins.find((p) => p.name === route.channel);
    if (plugin === undefined || plugin.converses !== true || plugin.postReply === undefined) {
      const why = plugin === undefined ? 'is not configured' : 'cannot hold a conversation';
      const conversing = plugins.filter((p) => p.converses === true && p.postReply !== undefined).map((p) => p.name);
      throw new ConfigError(
        'ASKGATE_ROUTES',
        `route ${i + 1} ("${route.name}"): channel "${route.channel}" ${why}; routes work on the configured channels ` +
          `that hold conversations (${conversing.sort().join(', ')}) — configure the channel or remove the route.`,
      );
    }
  });
}

/**
 * Stops channels one after another, in the order given, each awaited; one that fails is logged and the rest still
 * stop, so a shutdown always releases everything it can.
 */
export async function stopChannels(plugins: readonly ChannelPlugin[], logger: Logger): Promise<void> {
  for (const plugin of plugins) {
    try {
      await plugin.stop?.();
    } catch (err) {
      logger.warn(
        { channel: plugin.name, err: err instanceof Error ? err.message : String(err) },
        'channel stop failed',
      );
    }
  }
}
