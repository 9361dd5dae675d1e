import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The confirmation variables: defaults, comma-separated signing secrets, the admin scope, and one-line refusals. */

describe('confirmation configuration', () => {
  it('applies the defaults: no schedule, 26 h lookback, 1200 ms between answers, the Stripe API', () => {
    const { confirmations } = loadConfig({});
    expect(confirmations).toEqual({
      stripe: { secretKey: null, webhookSecrets: [], apiUrl: 'https://api.stripe.com' },
      reconcile: { everySeconds: null, lookbackHours: 26, intervalMs: 1200 },
      bridgeSecret: null,
    });
  });

  it('reads several signing secrets for rotation, the schedule and the API base', () => {
    const { confirmations } = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      STRIPE_WEBHOOK_SECRET: 'whsec_new, whsec_old',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_API_URL: 'http://127.0.0.1:4010/',
      ASKGATE_RECONCILE_EVERY: '900',
      ASKGATE_RECONCILE_LOOKBACK_HOURS: '48',
      ASKGATE_RECONCILE_INTERVAL_MS: '0',
      TAI_BRIDGE_CALLBACK_SECRET: 'bridge',
    });
    expect(confirmations).toEqual({
      stripe: { secretKey: 'sk_test_1', webhookSecrets: ['whsec_new', 'whsec_old'], apiUrl: 'http://127.0.0.1:4010' },
      reconcile: { everySeconds: 900, lookbackHours: 48, intervalMs: 0 },
      bridgeSecret: 'bridge',
    });
  });

  it('stops when a schedule could not list sessions', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', ASKGATE_RECONCILE_EVERY: '900' })).toThrow(
      /ASKGATE_RECONCILE_EVERY: needs STRIPE_SECRET_KEY/,
    );
  });

  it('accepts the admin scope on a token', () => {
    const config = loadConfig({ ASKGATE_TOKENS: '{"0123456789abcdef": {"identity": "ops", "scopes": ["admin"]}}' });
    expect([...(config.tokens.get('0123456789abcdef')?.scopes ?? [])]).toEqual(['admin']);
  });

  it.each([
    ['ASKGATE_RECONCILE_EVERY', 'soon', /"soon" is not a positive whole number/],
    ['ASKGATE_RECONCILE_EVERY', '0', /is not a positive whole number/],
    ['ASKGATE_RECONCILE_LOOKBACK_HOURS', '-3', /is not a positive whole number/],
    ['ASKGATE_RECONCILE_INTERVAL_MS', '1.5', /is not a whole number/],
    ['STRIPE_API_URL', 'api.stripe.com', /is not a URL/],
    ['ASKGATE_RECONCILE_EVERY', '900', /needs REDIS_URL/],
    ['STRIPE_API_URL', 'ftp://api.stripe.com', /must be an http\(s\):\/\/ URL/],
  ])('stops with one line naming %s for %s', (variable, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).message).not.toContain('\n');
  });
});
