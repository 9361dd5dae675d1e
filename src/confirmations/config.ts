import { secretList } from '../verifiers/secret-list.js';

/**
 * The confirmation variables, read once at start (called from `loadConfig`). A bad value stops the process with
 * one line naming the variable; `fail` builds that error, so this module does not import the config module back.
 */

export interface StripeConfig {
  /** `STRIPE_SECRET_KEY`: creates Checkout Sessions and lists them (reconcile). */
  secretKey: string | null;
  /** `STRIPE_WEBHOOK_SECRET`, comma-separated: every endpoint signing secret accepted (several while one is rolled). */
  webhookSecrets: string[];
  /** `STRIPE_API_URL`: the API base, default `https://api.stripe.com` (a loopback fake in tests). */
  apiUrl: string;
}

export interface ReconcileConfig {
  /** `ASKGATE_RECONCILE_EVERY` in seconds; null: no schedule, reconcile only by hand. */
  everySeconds: number | null;
  /** `ASKGATE_RECONCILE_LOOKBACK_HOURS`, default 26. */
  lookbackHours: number;
  /** `ASKGATE_RECONCILE_INTERVAL_MS`, default 1200: the pause between two answers of one run. */
  intervalMs: number;
}

export interface ConfirmationsConfig {
  stripe: StripeConfig;
  reconcile: ReconcileConfig;
  /** `TAI_BRIDGE_CALLBACK_SECRET`: what the bridge sends in `X-TAI-Bridge-Secret`; null when unset. */
  bridgeSecret: string | null;
}

type Env = Record<string, string | undefined>;
type Fail = (variable: string, message: string) => Error;

export const DEFAULT_LOOKBACK_HOURS = 26;
export const DEFAULT_INTERVAL_MS = 1200;

function value(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function whole(env: Env, name: string, fallback: number | null, fail: Fail, allowZero = false): number | null {
  const raw = value(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || (!allowZero && Number(raw) === 0))
    throw fail(
      name,
      `"${raw}" is not a ${allowZero ? 'whole' : 'positive whole'} number; set it to e.g. ${fallback ?? 900}.`,
    );
  return Number(raw);
}

function apiUrl(env: Env, fail: Fail): string {
  const raw = value(env, 'STRIPE_API_URL') ?? 'https://api.stripe.com';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail('STRIPE_API_URL', `"${raw}" is not a URL; set it to https://api.stripe.com or unset it.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fail('STRIPE_API_URL', 'must be an http(s):// URL such as https://api.stripe.com.');
  return url.origin;
}

export function confirmationsConfig(env: Env, fail: Fail): ConfirmationsConfig {
  const secrets = secretList(env['STRIPE_WEBHOOK_SECRET']);
  const everySeconds = whole(env, 'ASKGATE_RECONCILE_EVERY', null, fail);
  // A schedule that could never run is a mistake to stop on, not to log every tick.
  if (everySeconds !== null && value(env, 'REDIS_URL') === null)
    throw fail(
      'ASKGATE_RECONCILE_EVERY',
      'needs REDIS_URL: the schedule is a queue job on the workers; set REDIS_URL or unset it.',
    );
  if (everySeconds !== null && value(env, 'STRIPE_SECRET_KEY') === null)
    throw fail(
      'ASKGATE_RECONCILE_EVERY',
      'needs STRIPE_SECRET_KEY to list completed sessions; set it or unset the schedule.',
    );
  return {
    stripe: { secretKey: value(env, 'STRIPE_SECRET_KEY'), webhookSecrets: secrets, apiUrl: apiUrl(env, fail) },
    reconcile: {
      everySeconds,
      lookbackHours: whole(env, 'ASKGATE_RECONCILE_LOOKBACK_HOURS', DEFAULT_LOOKBACK_HOURS, fail) as number,
      intervalMs: whole(env, 'ASKGATE_RECONCILE_INTERVAL_MS', DEFAULT_INTERVAL_MS, fail, true) as number,
    },
    bridgeSecret: value(env, 'TAI_BRIDGE_CALLBACK_SECRET'),
  };
}
