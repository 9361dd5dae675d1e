import { ConfigError, type Env, optional } from './config-env.js';

/**
 * The variables of the chat channels whose settings live in the gateway config (Telegram, Slack, WhatsApp, Twilio),
 * each an all-or-nothing group: the channel is off when none of its required variables is set. Discord reads its own
 * in channels/discord/config.ts.
 */

export interface TelegramConfig {
  botToken: string;
  webhookSecret: string;
  apiRoot: string;
}
export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
}
export interface WhatsAppConfig {
  token: string;
  phoneNumberId: string;
  businessAccountId: string | null;
  appSecret: string;
  verifyToken: string;
  apiUrl: string;
  /** WHATSAPP_TEMPLATE_NAME / _LANGUAGE: the approved template that carries a question outside the 24-hour window. */
  templateName: string | null;
  templateLanguage: string;
}
export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  from: string | null;
  whatsappFrom: string | null;
  apiUrl: string;
}

export interface ChannelConfigs {
  telegram: TelegramConfig | null;
  slack: SlackConfig | null;
  whatsapp: WhatsAppConfig | null;
  twilio: TwilioConfig | null;
}

/** A group of variables that is all-or-nothing: a channel with some but not all of its required variables is a mistake. */
function group<T>(env: Env, required: readonly string[], build: (get: (n: string) => string) => T): T | null {
  const present = required.filter((n) => optional(env, n) !== null);
  if (present.length === 0) return null;
  const missing = required.find((n) => optional(env, n) === null);
  if (missing !== undefined) {
    throw new ConfigError(
      missing,
      `is required with ${present.join(', ')}; set it, or unset the others to leave the channel off.`,
    );
  }
  return build((n) => env[n] as string);
}

/** Meta names templates in lowercase letters, digits and underscores; anything else could never be approved. */
function templateName(raw: string | null): string | null {
  if (raw !== null && !/^[a-z0-9_]{1,512}$/.test(raw))
    throw new ConfigError(
      'WHATSAPP_TEMPLATE_NAME',
      `"${raw}" is not a template name; use the approved template's name (lowercase letters, digits, _).`,
    );
  return raw;
}

/** Each channel's group in the order loadConfig has always read them, so the first error a bad env shows is unchanged. */
export function channelConfigs(env: Env): ChannelConfigs {
  return {
    telegram: group(env, ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET'], (get) => ({
      botToken: get('TELEGRAM_BOT_TOKEN'),
      webhookSecret: get('TELEGRAM_WEBHOOK_SECRET'),
      apiRoot: optional(env, 'TELEGRAM_API_ROOT') ?? 'https://api.telegram.org',
    })),
    slack: group(env, ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'], (get) => ({
      botToken: get('SLACK_BOT_TOKEN'),
      signingSecret: get('SLACK_SIGNING_SECRET'),
      apiUrl: optional(env, 'SLACK_API_URL') ?? 'https://slack.com/api/',
    })),
    whatsapp: group(
      env,
      ['WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN'],
      (get) => ({
        token: get('WHATSAPP_TOKEN'),
        phoneNumberId: get('WHATSAPP_PHONE_NUMBER_ID'),
        businessAccountId: optional(env, 'WHATSAPP_BUSINESS_ACCOUNT_ID'),
        appSecret: get('WHATSAPP_APP_SECRET'),
        verifyToken: get('WHATSAPP_VERIFY_TOKEN'),
        apiUrl: optional(env, 'WHATSAPP_API_URL') ?? 'https://graph.facebook.com/v21.0',
        templateName: templateName(optional(env, 'WHATSAPP_TEMPLATE_NAME')),
        templateLanguage: optional(env, 'WHATSAPP_TEMPLATE_LANGUAGE') ?? 'en_US',
      }),
    ),
    twilio: group(env, ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'], (get) => ({
      accountSid: get('TWILIO_ACCOUNT_SID'),
      authToken: get('TWILIO_AUTH_TOKEN'),
      from: optional(env, 'TWILIO_FROM'),
      whatsappFrom: optional(env, 'TWILIO_WHATSAPP_FROM'),
      apiUrl: optional(env, 'TWILIO_API_URL') ?? 'https://api.twilio.com',
    })),
  };
}
