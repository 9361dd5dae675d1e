import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';
import { ConfigError } from '../../src/config-env.js';

/** WhatsApp Cloud API's variables: the token, the number, the app's secret, the verify token and the template. */
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

/** Meta names templates in lowercase letters, digits and underscores; anything else could never be approved. */
function templateName(raw: string | null): string | null {
  if (raw !== null && !/^[a-z0-9_]{1,512}$/.test(raw))
    throw new ConfigError(
      'WHATSAPP_TEMPLATE_NAME',
      `"${raw}" is not a template name; use the approved template's name (lowercase letters, digits, _).`,
    );
  return raw;
}

/**
 * WHATSAPP_TOKEN, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN, all or nothing, and the
 * optional business account, API root and template.
 */
export function whatsappConfig(env: ChannelEnv): WhatsAppConfig | null {
  return envGroup(
    env,
    ['WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN'],
    (get) => ({
      token: get('WHATSAPP_TOKEN'),
      phoneNumberId: get('WHATSAPP_PHONE_NUMBER_ID'),
      businessAccountId: optionalEnv(env, 'WHATSAPP_BUSINESS_ACCOUNT_ID'),
      appSecret: get('WHATSAPP_APP_SECRET'),
      verifyToken: get('WHATSAPP_VERIFY_TOKEN'),
      apiUrl: optionalEnv(env, 'WHATSAPP_API_URL') ?? 'https://graph.facebook.com/v21.0',
      templateName: templateName(optionalEnv(env, 'WHATSAPP_TEMPLATE_NAME')),
      templateLanguage: optionalEnv(env, 'WHATSAPP_TEMPLATE_LANGUAGE') ?? 'en_US',
    }),
  );
}
