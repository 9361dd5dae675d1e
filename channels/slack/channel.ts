import type { ChannelModule } from '../from-config.js';
import { SharedPacer } from '../shared-pacing.js';
import { METHOD_PER_MINUTE, PER_CHANNEL_PER_SECOND } from './limits.js';
import { SlackChannel } from './plugin.js';

/** Slack, when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set (parsed with the rest of the config). */
export const slack: ChannelModule = {
  name: 'slack',
  fromConfig: ({ config, logger, redis }) => {
    if (config.slack === null) return null;
    // On Redis, every process posting as this bot shares one budget per channel and for the workspace.
    const shared =
      redis === null
        ? null
        : new SharedPacer(
            { client: redis.command(), keys: redis.keys },
            {
              platform: 'slack',
              account: config.slack.botToken,
              perSecond: Math.floor((METHOD_PER_MINUTE['chat.postMessage'] ?? 60) / 60),
              perChatIntervalMs: Math.ceil(1000 / PER_CHANNEL_PER_SECOND),
            },
          );
    return new SlackChannel({ ...config.slack, logger, ...(shared === null ? {} : { pacing: { shared } }) });
  },
};
