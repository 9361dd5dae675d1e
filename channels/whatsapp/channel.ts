import type { ChannelModule } from '../module.js';
import { whatsappConfig } from './config.js';
import { SharedPacer } from '../shared-pacing.js';
import { MESSAGES_PER_SECOND, PER_RECIPIENT_INTERVAL_MS } from './limits.js';
import { WhatsAppChannel } from './plugin.js';

/** WhatsApp Cloud API, when its four WHATSAPP_* variables are set (its config.ts). */
export const whatsapp: ChannelModule = {
  name: 'whatsapp',
  place: 'on WhatsApp',
  variablePrefix: 'WHATSAPP_',
  fromConfig: ({ settings, logger, state }) => {
    const own = whatsappConfig(settings.env);
    if (own === null) return null;
    // On a shared state, every process sending from this number shares its throughput and the per-recipient gap.
    const pacer = !state.shared
      ? null
      : new SharedPacer(state.pacing, {
          platform: 'whatsapp',
          account: own.phoneNumberId,
          perSecond: MESSAGES_PER_SECOND,
          perChatIntervalMs: PER_RECIPIENT_INTERVAL_MS,
        });
    return new WhatsAppChannel({ ...own, logger, ...(pacer === null ? {} : { pacer }) });
  },
};
