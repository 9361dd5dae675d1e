import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';
import { ConfigError } from '../../src/config-env.js';

/** Discord's variables: the bot, the application and its public key, and the REST root. */
export interface DiscordConfig {
  botToken: string;
  /** The application's Ed25519 public key (64 hex characters, lower-cased): every interaction is verified with it. */
  publicKey: string;
  applicationId: string;
  /** REST root without the version, default `https://discord.com/api`. */
  apiUrl: string;
}

/** Discord's application public key is 32 bytes of hex; anything else would refuse every interaction. */
function hexKey(variable: string, raw: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(raw.trim()))
    throw new ConfigError(variable, "is not a public key; copy the 64 hex characters of the application's Public Key.");
  return raw.trim().toLowerCase();
}

/**
 * DISCORD_BOT_TOKEN, DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID, all or nothing (null: the channel is off; some
 * without the others: a ConfigError naming the missing one), and the optional DISCORD_API_URL.
 */
export function discordConfig(env: ChannelEnv): DiscordConfig | null {
  return envGroup(env, ['DISCORD_BOT_TOKEN', 'DISCORD_PUBLIC_KEY', 'DISCORD_APPLICATION_ID'], (get) => ({
    botToken: get('DISCORD_BOT_TOKEN'),
    publicKey: hexKey('DISCORD_PUBLIC_KEY', get('DISCORD_PUBLIC_KEY')),
    applicationId: get('DISCORD_APPLICATION_ID'),
    apiUrl: optionalEnv(env, 'DISCORD_API_URL') ?? 'https://discord.com/api',
  }));
}
