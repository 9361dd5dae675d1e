import type { ChannelModule } from '../module.js';
import { twilioConfig } from './config.js';
import { SharedPacer } from '../shared-pacing.js';
import { SENDER_MESSAGES_PER_SECOND } from './limits.js';
import { TwilioChannel } from './plugin.js';

/** SMS and WhatsApp via Twilio, when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set. */
export const twilio: ChannelModule = {
  name: 'twilio',
  place: (answeredBy) =>
    // Twilio carries WhatsApp too; the verified sender says which.
    answeredBy.startsWith('twilio:whatsapp:') ? 'on WhatsApp (Twilio)' : 'by SMS',
  variablePrefix: 'TWILIO_',
  fromConfig: ({ settings, logger, state }) => {
    const own = twilioConfig(settings.env);
    if (own === null) return null;
    // On a shared state, every process sending from one number shares its throughput (one budget per sender).
    const pacers = new Map<string, SharedPacer>();
    const pacer = !state.shared
      ? undefined
      : (sender: string): SharedPacer => {
          let p = pacers.get(sender);
          if (p === undefined) {
            p = new SharedPacer(state.pacing, {
              platform: 'twilio',
              account: sender,
              perSecond: SENDER_MESSAGES_PER_SECOND,
              perChatIntervalMs: 0,
            });
            pacers.set(sender, p);
          }
          return p;
        };
    return new TwilioChannel({
      ...own,
      publicBaseUrl: settings.publicBaseUrl,
      logger,
      ...(pacer === undefined ? {} : { pacer }),
    });
  },
};
