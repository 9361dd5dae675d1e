import type { ChannelModule } from '../from-config.js';
import { SharedPacer } from '../shared-pacing.js';
import { MESSAGES_PER_SECOND, PER_RECIPIENT_INTERVAL_MS } from './limits.js';
import { WhatsAppChannel } from './plugin.js';

/** WhatsApp Cloud API, when its four WHATSAPP_* variables are set (parsed with the rest of the config). */
export const whatsapp: ChannelModule = {
  name: 'whatsapp',
  fromConfig: ({ config, logger, redis }) => {
    if (config.whatsapp === null) return null;
    // On Redis, every process sending from this number shares its throughput and the per-recipient gap.
    const pacer =
      redis === null
        ? null
        : new SharedPacer(
            { client: redis.command(), keys: redis.keys },
            {
              platform: 'whatsapp',
              account: config.whatsapp.phoneNumberId,
              perSecond: MESSAGES_PER_SECOND,
              perChatIntervalMs: PER_RECIPIENT_INTERVAL_MS,
            },
          );
    return new WhatsAppChannel({ ...config.whatsapp, logger, ...(pacer === null ? {} : { pacer }) });
  },
};
