import type { ChannelModule } from '../from-config.js';
import { WhatsAppChannel } from './plugin.js';

/** WhatsApp Cloud API, when its four WHATSAPP_* variables are set (parsed with the rest of the config). */
export const whatsapp: ChannelModule = {
  name: 'whatsapp',
  fromConfig: ({ config, logger }) =>
    config.whatsapp === null ? null : new WhatsAppChannel({ ...config.whatsapp, logger }),
};
