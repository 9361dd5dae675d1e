import type { ChannelModule } from '../module.js';
import { SharedPacer } from '../shared-pacing.js';
import { emailConfig } from './config.js';
import { EmailChannel } from './plugin.js';
import { SmtpSender } from './send.js';

/** Email through SMTP, when SMTP_URL and EMAIL_FROM are set. */
export const email: ChannelModule = {
  name: 'email',
  place: 'by email',
  variablePrefix: 'EMAIL_',
  fromConfig: ({ settings, logger, state }) => {
    const own = emailConfig(settings.env);
    if (own === null) return null;
    // One budget for every process sending through this SMTP server as this sender (the state's pacing slots).
    const pacer = new SharedPacer(state.pacing, {
      platform: 'email',
      account: `${own.smtpUrl} ${own.fromAddress}`,
      perSecond: own.perSecond,
      perChatIntervalMs: 0,
    });
    return new EmailChannel({
      from: own.from,
      fromAddress: own.fromAddress,
      inboundSecret: own.inboundSecret,
      sender: new SmtpSender(own.smtpUrl, own.from, pacer),
      state,
      logger,
    });
  },
};
