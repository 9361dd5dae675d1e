import type { RequestHandler } from 'express';
import type { ChannelPlugin } from './contract.js';
import * as installed from './installed.js';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/observability/logger.js';
import type { RedisConnections } from '../src/store/redis/connections.js';

/** What a channel is built from: the gateway's configuration, its logger, and the doors' guards it may reuse. */
export interface ChannelContext {
  /** The whole configuration; a channel's own variables are read from `config.env` by its channel.ts. */
  config: Config;
  logger: Logger;
  doors: { requireWrite?: RequestHandler };
  /** The process's Redis connections (null on the in-memory store): shared budgets run on their command connection. */
  redis: RedisConnections | null;
}

/**
 * One channel as the gateway installs it: its name, and how it is built from configuration. Each channel folder
 * exports one from `channels/<name>/channel.ts`, and channels/installed.ts lists them (one line each).
 */
export interface ChannelModule {
  readonly name: string;
  /**
   * The channel, or null when its variables are absent (asking on it is then an unknown channel). Throws the
   * configuration's ConfigError, naming the variable and the fix, for a half-configured channel.
   */
  fromConfig(context: ChannelContext): ChannelPlugin | null;
}

/** Every installed channel's module, by export name: the order does not matter, as no two share a path. */
export const CHANNEL_MODULES: readonly ChannelModule[] = Object.values(installed);

/** The channels this gateway runs, from configuration: each installed channel whose variables are set. */
export function channelsFromConfig(
  config: Config,
  logger: Logger,
  doors: { requireWrite?: RequestHandler } = {},
  redis: RedisConnections | null = null,
): ChannelPlugin[] {
  const context: ChannelContext = { config, logger, doors, redis };
  return CHANNEL_MODULES.map((module) => module.fromConfig(context)).filter((p): p is ChannelPlugin => p !== null);
}
