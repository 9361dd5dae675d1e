import { envGroup, optionalEnv, type ChannelEnv } from '../env.js';
import { ConfigError } from '../../src/config-env.js';

/** The Teams channel's variables: the bot's Entra app registration, and where tokens and signing keys come from. */
export interface TeamsConfig {
  /** The bot's Microsoft App ID: the audience of every inbound token, and the client id of the outbound one. */
  appId: string;
  /** The app's client secret (never logged). */
  appPassword: string;
  /** The tenant the app is registered in (single-tenant bot). */
  tenantId: string;
  /** The token endpoint's base: `{loginUrl}/{tenantId}/oauth2/v2.0/token`. */
  loginUrl: string;
  /** The OpenID metadata document whose `jwks_uri` names the keys that sign inbound activities. */
  openIdMetadataUrl: string;
}

export const DEFAULT_LOGIN_URL = 'https://login.microsoftonline.com';
export const DEFAULT_OPENID_METADATA_URL = 'https://login.botframework.com/v1/.well-known/openidconfiguration';

function url(variable: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(variable, `is not a URL; set it to an absolute https:// URL.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(variable, `must be an http(s) URL, not ${parsed.protocol}.`);
  return raw.replace(/\/+$/, '');
}

/**
 * TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID, all or nothing (null: the channel is off; some without the
 * others: a ConfigError naming the missing one), and the optional TEAMS_LOGIN_URL and TEAMS_OPENID_METADATA_URL. Either
 * optional one set without the three is a half-configured channel too.
 */
export function teamsConfig(env: ChannelEnv): TeamsConfig | null {
  const built = envGroup(env, ['TEAMS_APP_ID', 'TEAMS_APP_PASSWORD', 'TEAMS_TENANT_ID'], (get) => ({
    appId: get('TEAMS_APP_ID').trim(),
    appPassword: get('TEAMS_APP_PASSWORD'),
    tenantId: get('TEAMS_TENANT_ID').trim(),
    loginUrl: url('TEAMS_LOGIN_URL', optionalEnv(env, 'TEAMS_LOGIN_URL') ?? DEFAULT_LOGIN_URL),
    openIdMetadataUrl: url(
      'TEAMS_OPENID_METADATA_URL',
      optionalEnv(env, 'TEAMS_OPENID_METADATA_URL') ?? DEFAULT_OPENID_METADATA_URL,
    ),
  }));
  if (built === null) {
    const stray = ['TEAMS_LOGIN_URL', 'TEAMS_OPENID_METADATA_URL'].find((n) => optionalEnv(env, n) !== null);
    if (stray !== undefined)
      throw new ConfigError(
        'TEAMS_APP_ID',
        `is required with ${stray}; set TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID, or unset ${stray}.`,
      );
    return null;
  }
  if (!/^[0-9a-zA-Z._-]{1,100}$/.test(built.tenantId))
    throw new ConfigError('TEAMS_TENANT_ID', 'is not a tenant id; copy the Directory (tenant) ID of the app.');
  return built;
}
