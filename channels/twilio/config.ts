import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';

/** Twilio's variables: the account, its auth token, the senders and the REST root. */
export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  from: string | null;
  whatsappFrom: string | null;
  apiUrl: string;
}

/** TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN, all or nothing, and the optional senders and TWILIO_API_URL. */
export function twilioConfig(env: ChannelEnv): TwilioConfig | null {
  return envGroup(env, ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'], (get) => ({
    accountSid: get('TWILIO_ACCOUNT_SID'),
    authToken: get('TWILIO_AUTH_TOKEN'),
    from: optionalEnv(env, 'TWILIO_FROM'),
    whatsappFrom: optionalEnv(env, 'TWILIO_WHATSAPP_FROM'),
    apiUrl: optionalEnv(env, 'TWILIO_API_URL') ?? 'https://api.twilio.com',
  }));
}
