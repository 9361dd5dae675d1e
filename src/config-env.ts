/**
 * The primitives every part of the configuration reads the environment with: the error a bad value throws (one line
 * naming the variable and the fix) and the rule that an empty variable counts as unset. Kept apart from config.ts so
 * each channel's variables (channels/<name>/config.ts) are read the same way without importing the whole config.
 */

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** A variable's value, or null when it is unset or empty. */
export function optional(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}
