import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerConfirmation, type BridgeSettings, deliverNow } from '../../src/confirmations/bridge.js';
import type { CompletedConfirmation } from '../../src/confirmations/providers/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { BRIDGE, freePort } from './helpers.js';

/**
 * The bridge in process, against a real gateway's callback service (in-memory store): it answers through the
 * verifier bound to the question (a forged bridge secret is refused), under the const pin (a wrong reference is
 * rejected, the ticket stays live), only on the pinned origin and door (anything else is refused and nothing is
 * read), and retries what the door would answer with 5xx on the ladder — five retries, 0.5 s doubling, jittered —
 * with the delays handed to an injected sleep, so no test waits on the wall clock.
 */

let gw: TestGateway;
/** A gateway whose TAI_BRIDGE_CALLBACK_SECRET is unset: the shared_secret verifier cannot run there (the door's 500). */
let bare: TestGateway;

async function gatewayOn(env: Record<string, string>): Promise<TestGateway> {
  const port = await freePort();
  return startTestGateway({ PORT: String(port), INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env });
}

beforeAll(async () => {
  [gw, bare] = await Promise.all([gatewayOn({ TAI_BRIDGE_CALLBACK_SECRET: BRIDGE }), gatewayOn({})]);
});
afterAll(async () => {
  await Promise.all([gw?.close(), bare?.close()]);
});

/** An external question bound to shared_secret and pinned to `reference`, as a confirmation preset asks it. */
async function askPinned(on: TestGateway, reference: string): Promise<{ id: string; callbackUrl: string }> {
  const res = await api(on.url, on.token).post('/api/interactions', {
    question: `Confirm ${reference}`,
    answer_format: 'external',
    verifier: { name: 'shared_secret' },
    schema: {
      type: 'object',
      properties: { decision: { const: 'confirmed' }, reference: { const: reference } },
      required: ['decision', 'reference'],
      additionalProperties: false,
    },
    timeout: 60,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json['id'] as string, callbackUrl: res.json['callback_url'] as string };
}

async function recordOf(on: TestGateway, id: string): Promise<Record<string, unknown>> {
  return (await api(on.url, on.token).get(`/api/interactions/${id}`)).json;
}

const settingsOf = (on: TestGateway, secret: string | null = BRIDGE): BridgeSettings => ({
  publicBaseUrl: on.gateway.config.publicBaseUrl,
  secret,
});

const confirmed = (callbackUrl: string, reference: string): CompletedConfirmation => ({
  session: 'cs_test_1',
  callbackUrl,
  reference,
  decision: 'confirmed',
});

describe('the in-process bridge', () => {
  it('answers through the bound verifier, as the callback door would, and a second delivery is already_answered', async () => {
    const { id, callbackUrl } = await askPinned(gw, 'order-1');
    const callbacks = gw.gateway.callbacks;
    expect(await answerConfirmation(confirmed(callbackUrl, 'order-1'), settingsOf(gw), callbacks)).toEqual({
      kind: 'answered',
    });
    const record = await recordOf(gw, id);
    expect(record['status']).toBe('answered');
    expect(record['result']).toMatchObject({
      answer: { decision: 'confirmed', reference: 'order-1' },
      answered_by: 'verifier:shared_secret',
      surface: 'callback',
    });
    expect(await answerConfirmation(confirmed(callbackUrl, 'order-1'), settingsOf(gw), callbacks)).toEqual({
      kind: 'already_answered',
    });
  });

  it('refuses a forged bridge secret through the verifier (the door 401): final, and the question stays pending', async () => {
    const { id, callbackUrl } = await askPinned(gw, 'order-2');
    const outcome = await answerConfirmation(
      confirmed(callbackUrl, 'order-2'),
      settingsOf(gw, 'not-the-bridge-secret'),
      gw.gateway.callbacks,
    );
    expect(outcome).toEqual({
      kind: 'refused',
      reason:
        'session cs_test_1: verifier_refused — the shared_secret verifier bound to this question refused the callback: ' +
        'the X-TAI-Bridge-Secret header does not match.',
    });
    expect((await recordOf(gw, id))['status']).toBe('pending');
    // The forged try changed nothing: the genuine bridge still answers.
    expect(await answerConfirmation(confirmed(callbackUrl, 'order-2'), settingsOf(gw), gw.gateway.callbacks)).toEqual({
      kind: 'answered',
    });
  });

  it('takes a reference the pin refuses as rejected (the door 400); the ticket stays live', async () => {
    const { id, callbackUrl } = await askPinned(gw, 'order-3');
    const outcome = await answerConfirmation(confirmed(callbackUrl, 'order-4'), settingsOf(gw), gw.gateway.callbacks);
    expect(outcome.kind).toBe('rejected');
    expect(outcome).toMatchObject({ reason: expect.stringContaining('invalid_answer') });
    expect((await recordOf(gw, id))['status']).toBe('pending');
  });

  it('refuses, reading nothing, a live ticket on another origin or off the callback door (the SSRF-style pin)', async () => {
    const { id, callbackUrl } = await askPinned(gw, 'order-5');
    const path = new URL(callbackUrl).pathname;
    const ticket = path.split('/').pop() as string;
    for (const url of [
      `https://evil.example${path}`,
      `http://169.254.169.254${path}`,
      `${gw.gateway.config.publicBaseUrl}/api/presets/${ticket}`,
      'not a url',
    ]) {
      const outcome = await answerConfirmation(confirmed(url, 'order-5'), settingsOf(gw), gw.gateway.callbacks);
      expect(outcome.kind, url).toBe('refused');
      if (outcome.kind === 'refused') expect(outcome.reason).not.toContain(ticket); // a live ticket is never in a reason
    }
    const evil = await answerConfirmation(
      confirmed(`https://evil.example${path}`, 'order-5'),
      settingsOf(gw),
      gw.gateway.callbacks,
    );
    expect(evil).toMatchObject({ kind: 'refused', reason: expect.stringContaining('SSRF pin') });
    expect((await recordOf(gw, id))['status']).toBe('pending');
  });

  it('refuses a decision other than confirmed, and runs without its secret or base URL nowhere', async () => {
    const { id, callbackUrl } = await askPinned(gw, 'order-6');
    const unpaid = { ...confirmed(callbackUrl, 'order-6'), decision: 'unpaid' };
    for (const [confirmation, settings, words] of [
      [unpaid, settingsOf(gw), 'has decision "unpaid"; the bridge answers only "confirmed"'],
      [confirmed(callbackUrl, 'order-6'), settingsOf(gw, null), 'TAI_BRIDGE_CALLBACK_SECRET is not set'],
      [confirmed(callbackUrl, 'order-6'), { publicBaseUrl: null, secret: BRIDGE }, 'INTERACTIONS_PUBLIC_BASE_URL'],
    ] as const) {
      const outcome = await answerConfirmation(confirmation, settings, gw.gateway.callbacks);
      expect(outcome).toMatchObject({ kind: 'refused', reason: expect.stringContaining(words) });
    }
    expect((await recordOf(gw, id))['status']).toBe('pending');
  });

  it('takes a ticket that does not resolve as expired (the door 404), whatever its shape', async () => {
    const base = gw.gateway.config.publicBaseUrl as string;
    for (const ticket of [`${'x'.repeat(43)}.nope`, 'short', 'a%2Fb', '%E0%A4%A']) {
      const url = `${base}/api/interactions/callback/${ticket}`;
      expect((await answerConfirmation(confirmed(url, 'r'), settingsOf(gw), gw.gateway.callbacks)).kind, ticket).toBe(
        'expired',
      );
    }
    const nested = `${base}/api/interactions/callback/a/b`;
    expect((await answerConfirmation(confirmed(nested, 'r'), settingsOf(gw), gw.gateway.callbacks)).kind).toBe(
      'expired',
    );
  });
});

describe('the ladder', () => {
  it('retries a verifier that cannot run (the door 500) five times, 0.5 s doubling with jitter, then gives up', async () => {
    const { id, callbackUrl } = await askPinned(bare, 'order-7');
    const sleeps: number[] = [];
    const outcome = await deliverNow(
      confirmed(callbackUrl, 'order-7'),
      settingsOf(bare),
      bare.gateway.callbacks,
      async (ms) => {
        sleeps.push(ms);
      },
    );
    expect(outcome).toMatchObject({ kind: 'transient', reason: expect.stringContaining('verifier_unavailable') });
    expect(sleeps).toHaveLength(5);
    [500, 1000, 2000, 4000, 8000].forEach((max, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(max / 2);
      expect(sleeps[i]).toBeLessThanOrEqual(max);
    });
    expect((await recordOf(bare, id))['status']).toBe('pending');
  });

  it('does not retry a verdict: a forged secret, an expired ticket and a pin refusal each take one try', async () => {
    const { callbackUrl } = await askPinned(gw, 'order-8');
    const base = gw.gateway.config.publicBaseUrl as string;
    for (const [confirmation, settings] of [
      [confirmed(callbackUrl, 'order-8'), settingsOf(gw, 'forged')],
      [confirmed(`${base}/api/interactions/callback/${'y'.repeat(43)}.gone`, 'r'), settingsOf(gw)],
      [confirmed(callbackUrl, 'order-9'), settingsOf(gw)],
    ] as const) {
      const sleeps: number[] = [];
      await deliverNow(confirmation, settings, gw.gateway.callbacks, async (ms) => void sleeps.push(ms));
      expect(sleeps).toEqual([]);
    }
  });
});
