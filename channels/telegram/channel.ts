import type { ChannelModule } from '../from-config.js';
import { TelegramChannel } from './plugin.js';

/** Telegram, when TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET are set (parsed with the rest of the config). */
export const telegram: ChannelModule = {
  name: 'telegram',
  fromConfig({ config, logger, redis }) {
    if (config.telegram === null) return null;
    // On Redis every process sending as the bot shares one budget; alone (in-memory store) it paces itself.
    const sharedPacing = redis === null ? null : { client: redis.command(), keys: redis.keys };
    return new TelegramChannel({ ...config.telegram, sharedPacing, logger });
  },
};
