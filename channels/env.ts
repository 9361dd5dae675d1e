import { ConfigError } from '../src/config-env.js';

/** A channel's variables, as `config.env` holds them (a copy of the environment the gateway started with). */
export type ChannelEnv = Readonly<Record<string, string | undefined>>;

/** A variable's value, or null when it is unset or empty. */
export function optionalEnv(env: ChannelEnv, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

/**
 * A channel's variables, all or nothing: null when none of `required` is set (the channel is off), the built config
 * when all are, and a ConfigError naming the first missing one when only some are (a half-configured channel is a
 * mistake, refused at start). For a channel's own `config.ts`, so its variables are read in its own folder.
 */
export function envGroup<T>(
  env: ChannelEnv,
  required: readonly string[],
  build: (get: (name: string) => string) => T,
): T | null {
  const present = required.filter((n) => optionalEnv(env, n) !== null);
  if (present.length === 0) return null;
  const missing = required.find((n) => optionalEnv(env, n) === null);
  if (missing !== undefined)
    throw new ConfigError(
      missing,
      `is required with ${present.join(', ')}; set it, or unset the others to leave the channel off.`,
    );
  return build((n) => env[n] as string);
}
