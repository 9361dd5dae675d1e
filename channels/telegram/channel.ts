import type { ChannelModule } from '../module.js';
import { telegramConfig } from './config.js';
import { TelegramChannel } from './plugin.js';

/** Telegram, when TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET are set (its config.ts). */
export const telegram: ChannelModule = {
  name: 'telegram',
  place: 'on Telegram',
  variablePrefix: 'TELEGRAM_',
  fromConfig({ settings, logger, state }) {
    const own = telegramConfig(settings.env);
    if (own === null) return null;
    // On a shared state every process sending as the bot shares one budget; alone (in-memory store) it paces itself.
    const sharedPacing = state.shared ? state.pacing : null;
    return new TelegramChannel({ ...own, sharedPacing, logger });
  },
};
