import type { ChannelModule } from '../from-config.js';
import { SharedPacer } from '../shared-pacing.js';
import { SENDER_MESSAGES_PER_SECOND } from './limits.js';
import { TwilioChannel } from './plugin.js';

/** SMS and WhatsApp via Twilio, when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set. */
export const twilio: ChannelModule = {
  name: 'twilio',
  fromConfig: ({ config, logger, redis }) => {
    if (config.twilio === null) return null;
    // On Redis, every process sending from one number shares its throughput (one budget per sender).
    const pacers = new Map<string, SharedPacer>();
    const pacer =
      redis === null
        ? undefined
        : (sender: string): SharedPacer => {
            let p = pacers.get(sender);
            if (p === undefined) {
              p = new SharedPacer(
                { client: redis.command(), keys: redis.keys },
                { platform: 'twilio', account: sender, perSecond: SENDER_MESSAGES_PER_SECOND, perChatIntervalMs: 0 },
              );
              pacers.set(sender, p);
            }
            return p;
          };
    return new TwilioChannel({
      ...config.twilio,
      publicBaseUrl: config.publicBaseUrl,
      logger,
      ...(pacer === undefined ? {} : { pacer }),
    });
  },
};
