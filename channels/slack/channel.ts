import type { ChannelModule } from '../from-config.js';
import { SlackChannel } from './plugin.js';

/** Slack, when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set (parsed with the rest of the config). */
export const slack: ChannelModule = {
  name: 'slack',
  fromConfig: ({ config, logger }) => (config.slack === null ? null : new SlackChannel({ ...config.slack, logger })),
};
