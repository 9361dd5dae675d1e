import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { ACCEPTED, defaultVerifiers, refused, type VerifyResult } from '../../src/verifiers/registry.js';
import { api } from '../helpers/http.js';
import { STRIPE_SECRET, stripeHeader } from './helpers.js';

const registry = defaultVerifiers();
const env = { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, TAI_BRIDGE_CALLBACK_SECRET: 'bridge' };
const binding = { name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' };
const payload = '{"id":"evt_1","type":"checkout.session.completed"}';
const now = Date.now();

function run(
  headers: Record<string, string>,
  overrides: Partial<{ binding: Record<string, unknown>; env: Record<string, string>; now: number; body: string }> = {},
) {
  return registry.verify({
    binding: { ...(overrides.binding ?? binding) } as { name: string },
    rawBody: Buffer.from(overrides.body ?? payload),
    headers,
    now: overrides.now ?? now,
    env: overrides.env ?? env,
  });
}

describe('the stripe verifier', () => {
  it('accepts a signature made by the stripe package', async () => {
    await expect(run({ 'stripe-signature': stripeHeader(payload) })).resolves.toEqual({ ok: true });
  });
  it('refuses a wrong secret, a changed body, a stale and a future timestamp', async () => {
    await expect(run({ 'stripe-signature': stripeHeader(payload, 'whsec_other') })).resolves.toMatchObject({
      ok: false,
    });
    await expect(run({ 'stripe-signature': stripeHeader(payload) }, { body: `${payload} ` })).resolves.toMatchObject({
      ok: false,
    });
    const stale = Math.floor(now / 1000) - 301;
    await expect(run({ 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale) })).resolves.toMatchObject({
      ok: false,
      reason: expect.stringMatching(/tolerance/),
    });
    await expect(run({ 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale + 602) })).resolves.toMatchObject(
      {
        ok: false,
        reason: expect.stringMatching(/tolerance/),
      },
    );
    // A binding's own tolerance widens the window.
    await expect(
      run(
        { 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale) },
        { binding: { ...binding, tolerance_seconds: 600 } },
      ),
    ).resolves.toEqual({ ok: true });
  });
  it('accepts any of several v1 signatures (a secret being rolled)', async () => {
    const t = Math.floor(now / 1000);
    const old = stripeHeader(payload, 'whsec_old', t).split(',')[1];
    const current = stripeHeader(payload, STRIPE_SECRET, t).split(',')[1];
    await expect(run({ 'stripe-signature': `t=${t},${old},${current}` })).resolves.toEqual({ ok: true });
    await expect(run({ 'stripe-signature': `t=${t},${old}` })).resolves.toMatchObject({ ok: false });
  });
  it('reads several comma-separated secrets from the variable secret_env names, as STRIPE_WEBHOOK_SECRET', async () => {
    const rolling = { ...env, STRIPE_WEBHOOK_SECRET: `whsec_old, ${STRIPE_SECRET}` };
    await expect(run({ 'stripe-signature': stripeHeader(payload) }, { env: rolling })).resolves.toEqual({ ok: true });
    await expect(run({ 'stripe-signature': stripeHeader(payload, 'whsec_old') }, { env: rolling })).resolves.toEqual({
      ok: true,
    });
    await expect(run({ 'stripe-signature': stripeHeader(payload, 'whsec_other') }, { env: rolling })).resolves.toEqual({
      ok: false,
      reason: 'the Stripe-Signature does not match STRIPE_WEBHOOK_SECRET.',
    });
  });
  it('refuses a missing or garbled header', async () => {
    await expect(run({})).resolves.toMatchObject({ ok: false });
    await expect(run({ 'stripe-signature': 'nonsense' })).resolves.toMatchObject({ ok: false });
  });
  it('cannot run without its secret, or with a malformed binding (not a refusal)', async () => {
    const missing = run({ 'stripe-signature': stripeHeader(payload) }, { env: {} });
    await expect(missing).rejects.toThrow(/STRIPE_WEBHOOK_SECRET is not set/);
    await expect(run({}, { binding: { name: 'stripe' } })).rejects.toThrow(/needs secret_env/);
    await expect(run({}, { binding: { name: 'stripe', secret_env: 'ASKGATE_TOKENS' } })).rejects.toThrow(
      /askgate's own/,
    );
    await expect(run({}, { binding: { name: 'nope' } })).rejects.toThrow(/not registered/);
  });
});

describe('the shared_secret verifier', () => {
  const shared = (headers: Record<string, string>, e: Record<string, string> = env) =>
    run(headers, { binding: { name: 'shared_secret' }, env: e });
  it('accepts the bridge secret and refuses anything else', async () => {
    await expect(shared({ 'x-tai-bridge-secret': 'bridge' })).resolves.toEqual({ ok: true });
    await expect(shared({ 'x-tai-bridge-secret': 'bridgf' })).resolves.toMatchObject({ ok: false });
    await expect(shared({ 'x-tai-bridge-secret': 'bridge-and-more' })).resolves.toMatchObject({ ok: false });
    await expect(shared({})).resolves.toMatchObject({ ok: false });
  });
  it('cannot run without TAI_BRIDGE_CALLBACK_SECRET', async () => {
    await expect(shared({ 'x-tai-bridge-secret': 'bridge' }, {})).rejects.toThrow(/TAI_BRIDGE_CALLBACK_SECRET/);
  });
  it('a deployment registers its own verifier', async () => {
    const mine = defaultVerifiers().register('header_token', {
      verify: ({ headers }) => (headers['x-token'] === 'ok' ? ACCEPTED : refused('the X-Token header is wrong.')),
    });
    expect(mine.explain({ name: 'header_token' })).toBeNull();
    await expect(
      mine.verify({
        binding: { name: 'header_token' },
        rawBody: Buffer.alloc(0),
        headers: { 'x-token': 'ok' },
        now,
        env,
      }),
    ).resolves.toEqual({ ok: true });
  });
});

describe('a verifier that returns no verdict', () => {
  it('has accepted nothing: the door answers 500 verifier_unavailable and the question stays pending', async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    });
    // A verifier written against another shape (one that returns nothing when it is content) must fail closed.
    const verifiers = defaultVerifiers().register('wordless', { verify: () => undefined as unknown as VerifyResult });
    const gateway = await createGateway(config, { verifiers });
    try {
      const url = await gateway.listen();
      const token = config.devToken as string;
      const asked = await api(url, token).post('/api/interactions', {
        question: 'Pay',
        answer_format: 'external',
        verifier: { name: 'wordless' },
        timeout: 60,
      });
      const path = new URL(asked.json['callback_url'] as string).pathname;
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"ok":true}',
      });
      expect(res.status).toBe(500);
      expect(((await res.json()) as Record<string, unknown>)['error']).toBe('verifier_unavailable');
      expect((await api(url, token).get(`/api/interactions/${asked.json['id'] as string}`)).json['status']).toBe(
        'pending',
      );
    } finally {
      await gateway.close();
    }
  });
});

describe("the channels' variables", () => {
  it('may not be a binding’s secret on a gateway, whichever registry it was given: every installed channel’s', async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    });
    // A caller's own registry, built without knowing the channels: the gateway reserves their variables on it.
    const gateway = await createGateway(config, { verifiers: defaultVerifiers() });
    try {
      const url = await gateway.listen();
      const http = api(url, config.devToken as string);
      const ask = (secretEnv: string) =>
        http.post('/api/interactions', {
          question: 'Pay',
          answer_format: 'external',
          verifier: { name: 'stripe', secret_env: secretEnv },
          timeout: 60,
        });
      for (const variable of [
        'TELEGRAM_BOT_TOKEN',
        'DISCORD_PUBLIC_KEY',
        'SLACK_SIGNING_SECRET',
        'TWILIO_AUTH_TOKEN',
      ]) {
        const refusedAsk = await ask(variable);
        expect(refusedAsk.status, variable).toBe(400);
        expect(refusedAsk.json['field']).toBe('verifier');
        expect(refusedAsk.json['message']).toContain(`secret_env "${variable}" names one of askgate's own variables`);
      }
      expect((await ask('STRIPE_WEBHOOK_SECRET')).status).toBe(201);
    } finally {
      await gateway.close();
    }
  });

  it('are refused by a registry that reserves them, for every verifier naming a secret_env', async () => {
    const reserving = defaultVerifiers().reserveVariables(['ACME_']);
    expect(reserving.explain({ name: 'stripe', secret_env: 'ACME_TOKEN' })).toBe(
      'secret_env "ACME_TOKEN" names one of askgate\'s own variables (ACME_…); name the variable that holds the signing secret.',
    );
    expect(reserving.explain({ name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' })).toBeNull();
    await expect(
      reserving.verify({
        binding: { name: 'stripe', secret_env: 'ACME_TOKEN' },
        rawBody: Buffer.alloc(0),
        headers: {},
        now,
        env,
      }),
    ).rejects.toThrow(/ACME_TOKEN" names one of askgate's own variables/);
  });
});
