import type { ChannelModule } from '../module.js';
import { slackConfig } from './config.js';
import { SharedPacer } from '../shared-pacing.js';
import type { PacingSlots } from '../../src/core/channel-state.js';
import { METHOD_PER_MINUTE, PER_CHANNEL_PER_SECOND } from './limits.js';
import { SlackChannel } from './plugin.js';

/** Slack, when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set (its config.ts). */
export const slack: ChannelModule = {
  name: 'slack',
  place: 'on Slack',
  variablePrefix: 'SLACK_',
  fromConfig: ({ settings, logger, state }) => {
    const own = slackConfig(settings.env);
    if (own === null) return null;
    // On a shared state, every process posting as this bot shares one budget per channel and for the workspace, and
    // one per method tier (chat.postMessage's tier is the workspace cap of the first).
    const client = state.shared ? state.pacing : null;
    const shared =
      client === null
        ? null
        : new SharedPacer(client, {
            platform: 'slack',
            account: own.botToken,
            perSecond: Math.floor((METHOD_PER_MINUTE['chat.postMessage'] ?? 60) / 60),
            perChatIntervalMs: Math.ceil(1000 / PER_CHANNEL_PER_SECOND),
          });
    const tiers = new Map<string, SharedPacer>();
    if (client !== null)
      for (const [method, perMinute] of Object.entries(METHOD_PER_MINUTE))
        if (method !== 'chat.postMessage') tiers.set(method, slackMethodTier(client, own.botToken, method, perMinute));
    return new SlackChannel({
      ...own,
      logger,
      ...(shared === null ? {} : { pacing: { shared, sharedMethod: (method: string) => tiers.get(method) } }),
    });
  },
};

/**
 * One method's tier as a budget shared by every process posting as the bot: its calls at least 60 000 / tier ms
 * apart, workspace-wide (the tier's one "chat" is METHOD_SCOPE; the slots are fine-grained, so the interval decides).
 */
export function slackMethodTier(store: PacingSlots, botToken: string, method: string, perMinute: number): SharedPacer {
  return new SharedPacer(store, {
    platform: 'slack',
    // Its own keys: the account is hashed into the key names together with the method.
    account: `${botToken}\n${method}`,
    perSecond: 1000,
    perChatIntervalMs: Math.ceil(60_000 / perMinute),
  });
}
