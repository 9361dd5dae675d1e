import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';

/** Telegram's variables: the bot, the webhook's secret token and the Bot API root. */
export interface TelegramConfig {
  botToken: string;
  webhookSecret: string;
  apiRoot: string;
}

/** TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET, all or nothing, and the optional TELEGRAM_API_ROOT. */
export function telegramConfig(env: ChannelEnv): TelegramConfig | null {
  return envGroup(env, ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET'], (get) => ({
    botToken: get('TELEGRAM_BOT_TOKEN'),
    webhookSecret: get('TELEGRAM_WEBHOOK_SECRET'),
    apiRoot: optionalEnv(env, 'TELEGRAM_API_ROOT') ?? 'https://api.telegram.org',
  }));
}
