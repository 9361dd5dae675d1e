import { describe, expect, it } from 'vitest';
import { defaultVerifiers, VerificationFailed } from '../../src/verifiers/registry.js';
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
    await expect(run({ 'stripe-signature': stripeHeader(payload) })).resolves.toBeUndefined();
  });
  it('refuses a wrong secret, a changed body, a stale and a future timestamp', async () => {
    await expect(run({ 'stripe-signature': stripeHeader(payload, 'whsec_other') })).rejects.toBeInstanceOf(
      VerificationFailed,
    );
    await expect(run({ 'stripe-signature': stripeHeader(payload) }, { body: `${payload} ` })).rejects.toBeInstanceOf(
      VerificationFailed,
    );
    const stale = Math.floor(now / 1000) - 301;
    await expect(run({ 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale) })).rejects.toThrow(/tolerance/);
    await expect(run({ 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale + 602) })).rejects.toThrow(
      /tolerance/,
    );
    // A binding's own tolerance widens the window.
    await expect(
      run(
        { 'stripe-signature': stripeHeader(payload, STRIPE_SECRET, stale) },
        { binding: { ...binding, tolerance_seconds: 600 } },
      ),
    ).resolves.toBeUndefined();
  });
  it('accepts any of several v1 signatures (a secret being rolled)', async () => {
    const t = Math.floor(now / 1000);
    const old = stripeHeader(payload, 'whsec_old', t).split(',')[1];
    const current = stripeHeader(payload, STRIPE_SECRET, t).split(',')[1];
    await expect(run({ 'stripe-signature': `t=${t},${old},${current}` })).resolves.toBeUndefined();
    await expect(run({ 'stripe-signature': `t=${t},${old}` })).rejects.toBeInstanceOf(VerificationFailed);
  });
  it('refuses a missing or garbled header', async () => {
    await expect(run({})).rejects.toBeInstanceOf(VerificationFailed);
    await expect(run({ 'stripe-signature': 'nonsense' })).rejects.toBeInstanceOf(VerificationFailed);
  });
  it('cannot run without its secret, or with a malformed binding (not a refusal)', async () => {
    const missing = run({ 'stripe-signature': stripeHeader(payload) }, { env: {} });
    await expect(missing).rejects.toThrow(/STRIPE_WEBHOOK_SECRET is not set/);
    await expect(missing).rejects.not.toBeInstanceOf(VerificationFailed);
    await expect(run({}, { binding: { name: 'stripe' } })).rejects.not.toBeInstanceOf(VerificationFailed);
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
    await expect(shared({ 'x-tai-bridge-secret': 'bridge' })).resolves.toBeUndefined();
    await expect(shared({ 'x-tai-bridge-secret': 'bridgf' })).rejects.toBeInstanceOf(VerificationFailed);
    await expect(shared({ 'x-tai-bridge-secret': 'bridge-and-more' })).rejects.toBeInstanceOf(VerificationFailed);
    await expect(shared({})).rejects.toBeInstanceOf(VerificationFailed);
  });
  it('cannot run without TAI_BRIDGE_CALLBACK_SECRET', async () => {
    await expect(shared({ 'x-tai-bridge-secret': 'bridge' }, {})).rejects.toThrow(/TAI_BRIDGE_CALLBACK_SECRET/);
  });
  it('a deployment registers its own verifier', async () => {
    const mine = defaultVerifiers().register('header_token', {
      verify: ({ headers }) => {
        if (headers['x-token'] !== 'ok') throw new VerificationFailed('bad token');
      },
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
    ).resolves.toBeUndefined();
  });
});
