import type { ChannelModule } from '../from-config.js';
import { TwilioChannel } from './plugin.js';

/** SMS and WhatsApp via Twilio, when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set. */
export const twilio: ChannelModule = {
  name: 'twilio',
  fromConfig: ({ config, logger }) =>
    config.twilio === null
      ? null
      : new TwilioChannel({ ...config.twilio, publicBaseUrl: config.publicBaseUrl, logger }),
};
