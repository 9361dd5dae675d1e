import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';

/** Slack's variables: the bot token, the app's signing secret and the Web API root. */
export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
}

/** SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, all or nothing, and the optional SLACK_API_URL. */
export function slackConfig(env: ChannelEnv): SlackConfig | null {
  return envGroup(env, ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'], (get) => ({
    botToken: get('SLACK_BOT_TOKEN'),
    signingSecret: get('SLACK_SIGNING_SECRET'),
    apiUrl: optionalEnv(env, 'SLACK_API_URL') ?? 'https://slack.com/api/',
  }));
}
