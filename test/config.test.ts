import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration from the environment', () => {
  it('refuses dev mode on a non-loopback HOST, and allows it on every loopback spelling', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      expect(() => loadConfig({ HOST: host }), host).toThrow(
        /ASKGATE_TOKENS: is unset, so askgate would start in dev mode/,
      );
    }
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2'])
      expect(loadConfig({ HOST: host }).devToken).not.toBeNull();
    const tokens = JSON.stringify({ 'a-token-of-16-chars-or-more': { identity: 'ops', scopes: ['read'] } });
    expect(loadConfig({ HOST: '0.0.0.0', ASKGATE_TOKENS: tokens }).devToken).toBeNull();
  });

  it('refuses the test-only ASKGATE_TEST_HOLD_BEFORE_ENQUEUE hook under NODE_ENV=production, and leaves it off by default', () => {
    expect(loadConfig({}).testHoldBeforeEnqueue).toBe(false);
    expect(loadConfig({ ASKGATE_TEST_HOLD_BEFORE_ENQUEUE: '1' }).testHoldBeforeEnqueue).toBe(true);
    expect(() => loadConfig({ ASKGATE_TEST_HOLD_BEFORE_ENQUEUE: '1', NODE_ENV: 'production' })).toThrow(
      /ASKGATE_TEST_HOLD_BEFORE_ENQUEUE.*unset it in production/,
    );
  });

  it("refuses the test suite's follow-up clock (ASKGATE_TEST_FOLLOW_UP_SECOND_MS) under NODE_ENV=production", () => {
    expect(loadConfig({}).testFollowUpSecondMs).toBe(1000);
    expect(loadConfig({ ASKGATE_TEST_FOLLOW_UP_SECOND_MS: '50' }).testFollowUpSecondMs).toBe(50);
    expect(() => loadConfig({ ASKGATE_TEST_FOLLOW_UP_SECOND_MS: '50', NODE_ENV: 'production' })).toThrow(
      /ASKGATE_TEST_FOLLOW_UP_SECOND_MS.*unset it in production/,
    );
  });

  it('takes LOG_LEVEL in any case and refuses an unknown level, naming the variable and the levels', () => {
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(loadConfig({}).logLevel).toBe('info');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL: "verbose" is not a level; use one of fatal/);
  });

  it('takes ASKGATE_MCP_PROGRESS_SECONDS from 1 to 60 (default 10), and refuses anything else by name', () => {
    expect(loadConfig({}).mcpProgressSeconds).toBe(10);
    expect(loadConfig({ ASKGATE_MCP_PROGRESS_SECONDS: '3' }).mcpProgressSeconds).toBe(3);
    expect(() => loadConfig({ ASKGATE_MCP_PROGRESS_SECONDS: '61' })).toThrow(
      /ASKGATE_MCP_PROGRESS_SECONDS: "61" is over 60/,
    );
    expect(() => loadConfig({ ASKGATE_MCP_PROGRESS_SECONDS: '0' })).toThrow(/ASKGATE_MCP_PROGRESS_SECONDS/);
  });

  it('takes ASKGATE_DEV_TOKEN as the dev token, and refuses a short one', () => {
    expect(loadConfig({ ASKGATE_DEV_TOKEN: 'sixteen-chars-ok' }).devToken).toBe('sixteen-chars-ok');
    expect(() => loadConfig({ ASKGATE_DEV_TOKEN: 'short' })).toThrow(/ASKGATE_DEV_TOKEN: must be at least 16/);
  });

  it('applies the contract defaults and dev mode when nothing is set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.redisUrl).toBeNull();
    expect(config.defaultTimeoutSeconds).toBe(300);
    expect(config.idleTtlSeconds).toBe(86_400);
    expect(config.retentionWaitingMinutes).toBe(10_080);
    expect(config.callbackRate).toEqual({ limit: 60, windowSeconds: 60 });
    expect(config.devToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect([...(config.tokens.get(config.devToken as string)?.scopes ?? [])].sort()).toEqual([
      'admin',
      'answer',
      'read',
      'write',
    ]);
  });

  const bad: Array<[string, Record<string, string>, RegExp]> = [
    ['PORT', { PORT: 'eighty' }, /PORT: "eighty" is not a positive whole number/],
    ['PORT', { PORT: '70000' }, /PORT: 70000 is not a port/],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }, /REDIS_URL: must start with redis:\/\//],
    ['ASKGATE_TOKENS', { ASKGATE_TOKENS: '{nope' }, /ASKGATE_TOKENS: is not valid JSON/],
    [
      'ASKGATE_TOKENS',
      { ASKGATE_TOKENS: '{"short": {"identity": "a", "scopes": ["read"]}}' },
      /at least 16 characters/,
    ],
    [
      'ASKGATE_TOKENS',
      { ASKGATE_TOKENS: '{"0123456789abcdef": {"identity": "a", "scopes": ["superuser"]}}' },
      /"scopes" must be a list drawn from "read", "write", "answer", "admin"/,
    ],
    [
      'ASKGATE_TOKENS',
      { ASKGATE_TOKENS: '{"0123456789abcdef": {"identity": "a", "scopes": ["read"], "webhook_secret": "x"}}' },
      /whsec_/,
    ],
    [
      'INTERACTIONS_PUBLIC_BASE_URL',
      { INTERACTIONS_PUBLIC_BASE_URL: 'http://gateway.example.com' },
      /must be https:\/\//,
    ],
    ['INTERACTIONS_DEFAULT_TIMEOUT_SECONDS', { INTERACTIONS_DEFAULT_TIMEOUT_SECONDS: '-1' }, /positive whole number/],
    ['INTERACTIONS_CALLBACK_RATE', { INTERACTIONS_CALLBACK_RATE: '60 per minute' }, /is not N\/SECONDS/],
    ['ASKGATE_RESUME_LOCK_MS', { ASKGATE_RESUME_LOCK_MS: '0' }, /positive whole number/],
  ];
  for (const [variable, env, message] of bad) {
    it(`stops with one line naming ${variable} and the fix for ${JSON.stringify(env)}`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as ConfigError).message).toMatch(message);
      expect((error as ConfigError).message).not.toContain('\n');
    });
  }

  it('never echoes a token in a configuration error', () => {
    expect(() => loadConfig({ ASKGATE_TOKENS: '{"super-secret-token-value": {"identity": ""}}' })).toThrow(/entry 1/);
    try {
      loadConfig({ ASKGATE_TOKENS: '{"super-secret-token-value": {"identity": ""}}' });
    } catch (err) {
      expect((err as Error).message).not.toContain('super-secret-token-value');
    }
  });

  it('accepts http:// public URLs on loopback hosts only, and https:// anywhere', () => {
    expect(loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }).publicBaseUrl).toBe(
      'http://127.0.0.1:8080',
    );
    expect(loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: 'http://localhost:8080/' }).publicBaseUrl).toBe(
      'http://localhost:8080',
    );
    expect(loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: 'https://ask.example.com/gw/' }).publicBaseUrl).toBe(
      'https://ask.example.com/gw',
    );
  });
});

describe('the public base URL', () => {
  const tokens = JSON.stringify({ 'a-long-enough-token-1234': { identity: 'ops', scopes: ['read'] } });
  it.each([
    [{ HOST: '127.0.0.1', PORT: '8080' }, 'http://127.0.0.1:8080', true],
    [{ HOST: 'localhost', PORT: '9000' }, 'http://localhost:9000', true],
    [{ HOST: '::1', PORT: '8080' }, 'http://[::1]:8080', true],
    [{ HOST: '127.0.0.1', PORT: '0' }, null, false],
    [{ HOST: '0.0.0.0', PORT: '8080', ASKGATE_TOKENS: tokens }, null, false],
    [
      { HOST: '127.0.0.1', PORT: '8080', INTERACTIONS_PUBLIC_BASE_URL: 'https://ask.example.com/' },
      'https://ask.example.com',
      false,
    ],
  ])('with %j is %s', (env, url, own) => {
    const config = loadConfig(env);
    expect(config.publicBaseUrl).toBe(url);
    expect(config.publicBaseUrlIsOwn).toBe(own);
  });
});
