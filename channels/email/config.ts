import { ConfigError } from '../../src/config-env.js';
import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';
import { addressRefusal } from './address.js';

/** The email channel's variables: the SMTP server, the sender, the inbound door's secret and the send rate. */
export interface EmailConfig {
  /** `smtp://` or `smtps://`, credentials in the URL (nodemailer reads it as is). */
  smtpUrl: string;
  /** The sender address every question comes from (`askgate@example.com` or `Askgate <askgate@example.com>`). */
  from: string;
  /** The bare address of `from`: replies come back to it. */
  fromAddress: string;
  /** The secret that signs inbound mail posted to the door; null: the door refuses every post. */
  inboundSecret: string | null;
  /** Messages per second through the SMTP server, every process together. */
  perSecond: number;
}

/** The send rate when EMAIL_SEND_PER_SECOND is unset: within what hosted SMTP relays allow a new account. */
export const DEFAULT_PER_SECOND = 5;

/** SMTP_URL and EMAIL_FROM, both or neither; EMAIL_INBOUND_SECRET and EMAIL_SEND_PER_SECOND optional. */
export function emailConfig(env: ChannelEnv): EmailConfig | null {
  return envGroup(env, ['SMTP_URL', 'EMAIL_FROM'], (get) => {
    const smtpUrl = get('SMTP_URL');
    checkSmtpUrl(smtpUrl);
    const from = get('EMAIL_FROM');
    const fromAddress = bareAddress(from);
    const refusal = addressRefusal(fromAddress);
    if (refusal !== null) throw new ConfigError('EMAIL_FROM', `${refusal} Use an address such as askgate@example.com.`);
    const rate = optionalEnv(env, 'EMAIL_SEND_PER_SECOND');
    const perSecond = rate === null ? DEFAULT_PER_SECOND : Number(rate);
    if (!Number.isInteger(perSecond) || perSecond < 1 || perSecond > 1000)
      throw new ConfigError('EMAIL_SEND_PER_SECOND', 'must be a whole number of messages per second, 1..1000.');
    return { smtpUrl, from, fromAddress, inboundSecret: optionalEnv(env, 'EMAIL_INBOUND_SECRET'), perSecond };
  });
}

/** `smtp://user:pass@host:587` or `smtps://…:465`; anything else stops the gateway, naming SMTP_URL (never its value). */
function checkSmtpUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      'SMTP_URL',
      'is not a URL; use smtp://user:password@smtp.example.com:587 (or smtps://…:465).',
    );
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL', `must start with smtp:// or smtps://, not ${url.protocol}//.`);
  if (url.hostname === '') throw new ConfigError('SMTP_URL', 'names no host; use smtp://user:password@host:587.');
}

/** `Askgate <askgate@example.com>` → `askgate@example.com`; a bare address as it is. */
export function bareAddress(from: string): string {
  const angled = /<([^<>]+)>\s*$/.exec(from);
  return (angled?.[1] ?? from).trim();
}
