import { discordConfig } from './config.js';
import { DiscordChannel } from './plugin.js';
import type { ChannelModule } from '../module.js';

/** Discord, when DISCORD_BOT_TOKEN, DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID are set (channels/discord/config.ts). */
export const discord: ChannelModule = {
  name: 'discord',
  place: 'on Discord',
  variablePrefix: 'DISCORD_',
  fromConfig: ({ settings }) => {
    const own = discordConfig(settings.env);
    return own === null ? null : new DiscordChannel(own);
  },
};
