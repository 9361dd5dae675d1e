import { describe, expect, it } from 'vitest';
import { slackConfig } from '../../channels/slack/config.js';
import { telegramConfig } from '../../channels/telegram/config.js';
import { twilioConfig } from '../../channels/twilio/config.js';
import { whatsappConfig } from '../../channels/whatsapp/config.js';
import { ConfigError } from '../../src/config-env.js';

/** Each channel reads its own variables (channels/<name>/config.ts): all or nothing, a bad one named with its fix. */
describe("channels' own variables", () => {
  const whatsapp = {
    WHATSAPP_TOKEN: 't',
    WHATSAPP_PHONE_NUMBER_ID: '1',
    WHATSAPP_APP_SECRET: 's',
    WHATSAPP_VERIFY_TOKEN: 'v',
  };

  it('leaves a channel off without its variables, and reads them with their defaults when set', () => {
    expect(telegramConfig({})).toBeNull();
    expect(slackConfig({ SLACK_BOT_TOKEN: '' })).toBeNull();
    expect(telegramConfig({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: 'secret' })).toEqual({
      botToken: '1:abc',
      webhookSecret: 'secret',
      apiRoot: 'https://api.telegram.org',
    });
    expect(slackConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' })).toEqual({
      botToken: 'xoxb-1',
      signingSecret: 's',
      apiUrl: 'https://slack.com/api/',
    });
    expect(twilioConfig({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15550001111' })).toEqual({
      accountSid: 'AC1',
      authToken: 't',
      from: '+15550001111',
      whatsappFrom: null,
      apiUrl: 'https://api.twilio.com',
    });
  });

  it('stops with one line naming the missing variable of a half-configured channel', () => {
    expect(() => telegramConfig({ TELEGRAM_BOT_TOKEN: '1:abc' })).toThrow(ConfigError);
    expect(() => telegramConfig({ TELEGRAM_BOT_TOKEN: '1:abc' })).toThrow(
      /^TELEGRAM_WEBHOOK_SECRET: is required with TELEGRAM_BOT_TOKEN; set it, or unset the others/,
    );
    expect(() => twilioConfig({ TWILIO_AUTH_TOKEN: 't' })).toThrow(
      /^TWILIO_ACCOUNT_SID: is required with TWILIO_AUTH_TOKEN/,
    );
  });

  it('reads the WhatsApp template that carries questions outside the 24-hour window, with its language', () => {
    expect(whatsappConfig(whatsapp)).toMatchObject({ templateName: null, templateLanguage: 'en_US' });
    expect(
      whatsappConfig({ ...whatsapp, WHATSAPP_TEMPLATE_NAME: 'askgate_question', WHATSAPP_TEMPLATE_LANGUAGE: 'de' }),
    ).toMatchObject({ templateName: 'askgate_question', templateLanguage: 'de' });
    expect(() => whatsappConfig({ ...whatsapp, WHATSAPP_TEMPLATE_NAME: 'Ask Me!' })).toThrow(
      /^WHATSAPP_TEMPLATE_NAME: "Ask Me!" is not a template name/,
    );
  });
});
