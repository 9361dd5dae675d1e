import type { RequestHandler } from 'express';
import type { ChannelPlugin } from '../contract.js';
import { definePlace } from '../outcome.js';
import * as installed from './installed.js';
import type { ChannelContext, ChannelModule, ChannelSettings } from '../module.js';
import type { ChannelState } from '../../src/core/channel-state.js';
import type { Logger } from '../../src/observability/logger.js';

export type { ChannelContext, ChannelModule, ChannelSettings } from '../module.js';

/** Every installed channel's module, by export name: the order does not matter, as no two share a path. */
export const CHANNEL_MODULES: readonly ChannelModule[] = Object.values(installed);

// Every channel's outcome lines name where an answer came from, on whichever channel it came.
for (const module of CHANNEL_MODULES) definePlace(module.name, module.place);

/** The prefixes of every installed channel's variables: none may be a webhook verifier's secret. */
export const CHANNEL_VARIABLE_PREFIXES: readonly string[] = CHANNEL_MODULES.flatMap((m) =>
  m.variablePrefix === null ? [] : [m.variablePrefix],
);

/** The channels this gateway runs, from its settings: each installed channel whose variables are set. */
export function channelsFromConfig(
  settings: ChannelSettings,
  logger: Logger,
  state: ChannelState,
  doors: { requireWrite?: RequestHandler } = {},
): ChannelPlugin[] {
  const context: ChannelContext = { settings, logger, doors, state };
  return CHANNEL_MODULES.map((module) => module.fromConfig(context)).filter((p): p is ChannelPlugin => p !== null);
}
