import { teamsConfig } from './config.js';
import { PER_APP_PER_SECOND, PER_CONVERSATION_INTERVAL_MS } from './limits.js';
import { TeamsChannel } from './plugin.js';
import type { ChannelModule } from '../module.js';
import { SharedPacer } from '../shared-pacing.js';

/** Microsoft Teams, when TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID are set (channels/teams/config.ts). */
export const teams: ChannelModule = {
  name: 'teams',
  place: 'on Teams',
  variablePrefix: 'TEAMS_',
  fromConfig: ({ settings, state }) => {
    const own = teamsConfig(settings.env);
    if (own === null) return null;
    // Every process sending as this app shares one budget per conversation (the channel state's pacing slots).
    const pacer = new SharedPacer(state.pacing, {
      platform: 'teams',
      account: own.appId,
      perSecond: PER_APP_PER_SECOND,
      perChatIntervalMs: PER_CONVERSATION_INTERVAL_MS,
    });
    return new TeamsChannel({ ...own, state, pacer });
  },
};
