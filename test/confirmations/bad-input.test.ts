import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, stripeSignature, type FakeStripe } from '../fakes/stripe-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, freePort, runCli, TOKENS, until } from './helpers.js';

/**
 * What confirmations refuse, each checked for its status, its words, and that nothing changed: forged and stale
 * events, an event for an expired question, a callback URL on another origin, a decision other than confirmed, a
 * reference the pin refuses, a preset write without admin, a caller passing a fixed field. One gateway on Redis
 * with its workers in process; the bridge's failures are read back from the failed-job door.
 */

let redis: RedisServerHandle;
let stripe: FakeStripe;
let gw: TestGateway;
const reference = 'order-7';
const admin = () => api(gw.url, ADMIN);
const agent = () => api(gw.url, AGENT);

beforeAll(async () => {
  [redis, stripe] = await Promise.all([startRedisServer(), startFakeStripe()]);
  const port = await freePort();
  gw = await startTestGateway({
    PORT: String(port),
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{bad-confirm}:',
    ASKGATE_TOKENS: TOKENS,
    INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    INTERACTIONS_CALLBACK_RATE: '10000/60',
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    STRIPE_API_URL: stripe.apiUrl,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    ASKGATE_RECONCILE_INTERVAL_MS: '0',
  });
  stripe.webhookUrl = `${gw.url}/webhooks/stripe`;
  expect((await admin().put('/api/presets/deposit', depositPreset(reference))).status).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([stripe?.close(), redis?.stop()]);
});

/** Asks through the preset as the agent; returns the record and its Checkout Session. */
async function askDeposit(timeout = 60): Promise<{ id: string; session: string; callbackUrl: string }> {
  const res = await agent().post('/api/presets/deposit/ask', { timeout });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const session = [...stripe.sessions.values()].find((s) => s.url === res.json['confirmation_url']);
  if (session === undefined) throw new Error('no session');
  return {
    id: res.json['id'] as string,
    session: session.id,
    callbackUrl: session.metadata['askgate_callback_url'] as string,
  };
}

async function statusOf(id: string): Promise<string> {
  return (await agent().get(`/api/interactions/${id}`)).json['status'] as string;
}

type FailedJob = { job: string; session: string; reason: string; attempts: number };

async function failedFor(session: string): Promise<FailedJob> {
  return until(async () => {
    const items = (await admin().get('/api/confirmations/failed')).json['items'] as FailedJob[];
    return items.find((j) => j.session === session) ?? null;
  }, `a failed bridge job for ${session}`);
}

describe('the Stripe ingress', () => {
  it('refuses a forged signature and a missing one with 401; nothing is dispatched, the genuine event still lands', async () => {
    const { id, session } = await askDeposit();
    const event = stripe.complete(session);
    const forged = stripe.sign(JSON.parse(event.payload) as Record<string, unknown>, { secret: 'whsec_not_ours' });
    const refused = await stripe.deliver(event, forged.header);
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ error: 'unauthorized' });
    expect(refused.json['message']).toContain('Stripe-Signature does not match STRIPE_WEBHOOK_SECRET');
    const missing = await fetch(stripe.webhookUrl as string, { method: 'POST', body: event.payload });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toContain('Stripe-Signature header is missing');
    await new Promise((r) => setTimeout(r, 200));
    expect(await statusOf(id)).toBe('pending');
    // The forged try did not claim the event id: the genuine delivery is accepted and answers.
    expect((await stripe.deliver(event)).json).toEqual({ status: 'accepted' });
    await until(async () => ((await statusOf(id)) === 'answered' ? true : null), 'the answer');
  });

  it('refuses a stale signature (older than 300 s) with 401 and changes nothing', async () => {
    const { id, session } = await askDeposit();
    const event = stripe.complete(session);
    const stale = stripe.sign(JSON.parse(event.payload) as Record<string, unknown>, {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const res = await stripe.deliver(stale);
    expect(res.status).toBe(401);
    expect(res.json['message']).toContain('older than 300 s');
    await new Promise((r) => setTimeout(r, 200));
    expect(await statusOf(id)).toBe('pending');
  });

  it('refuses a correctly signed body that is not a JSON event with 400, naming the body', async () => {
    for (const payload of ['not json', '{"object":"event"}']) {
      const header = stripeSignature(payload, STRIPE_WHSEC, Math.floor(Date.now() / 1000));
      const res = await fetch(stripe.webhookUrl as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: payload,
      });
      expect(res.status, payload).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request', field: 'body' });
    }
  });

  it('says so when it ignores an event that is not a confirmation', async () => {
    const other = stripe.sign({ id: 'evt_other_1', object: 'event', type: 'invoice.paid', data: { object: {} } });
    expect(await stripe.deliver(other)).toEqual({
      status: 200,
      json: { status: 'ignored', reason: 'invoice.paid events are not confirmations; ignored.' },
    });
  });

  it('answers on async_payment_succeeded, after a completed-but-unpaid session', async () => {
    const { id, session } = await askDeposit();
    const completed = stripe.complete(session, { paymentStatus: 'unpaid' });
    const paid = JSON.parse(completed.payload) as {
      id: string;
      type: string;
      data: { object: { payment_status: string } };
    };
    paid.id = `${paid.id}_paid`;
    paid.type = 'checkout.session.async_payment_succeeded';
    paid.data.object.payment_status = 'paid';
    expect((await stripe.deliver(stripe.sign(paid))).json).toEqual({ status: 'accepted' });
    await until(async () => ((await statusOf(id)) === 'answered' ? true : null), 'the answer');
  });
});

describe('the bridge', () => {
  it('records an event for an expired question as failed on the door 404 (not_found), without retrying it', async () => {
    const { id, session } = await askDeposit(1);
    await until(async () => ((await statusOf(id)) === 'expired' ? true : null), 'the expiry');
    expect((await stripe.deliver(stripe.complete(session))).json).toEqual({ status: 'accepted' });
    const job = await failedFor(session);
    expect(job.reason).toContain(`session ${session}: not_found — this callback ticket does not resolve`);
    expect(job.attempts).toBe(1);
    expect(await statusOf(id)).toBe('expired');
  });

  it('refuses a callback URL on another origin (the SSRF pin) and records it', async () => {
    const evil = stripe.addSession({
      client_reference_id: reference,
      metadata: { askgate_callback_url: 'http://169.254.169.254/api/interactions/callback/abc', reference },
    });
    expect((await stripe.deliver(stripe.complete(evil.id))).json).toEqual({ status: 'accepted' });
    const job = await failedFor(evil.id);
    expect(job.reason).toContain('carries a callback URL on http://169.254.169.254');
    expect(job.reason).toContain('SSRF pin');
    expect(job.reason).not.toContain('/callback/abc'); // the ticket never lands in a record
    expect(job.attempts).toBe(1);
  });

  it('refuses a decision other than confirmed (an unpaid session) and leaves the question pending', async () => {
    const { id, session } = await askDeposit();
    expect((await stripe.deliver(stripe.complete(session, { paymentStatus: 'unpaid' }))).json).toEqual({
      status: 'accepted',
    });
    const job = await failedFor(session);
    expect(job.reason).toContain('has decision "unpaid"; the bridge answers only "confirmed"');
    expect(await statusOf(id)).toBe('pending');
  });

  it(
    'takes the door 400 (invalid_answer) on a reference the pin refuses: recorded, the ticket stays ' +
      'live, and an operator retry later finds it answered',
    async () => {
      const { id, session, callbackUrl } = await askDeposit();
      const wrong = stripe.addSession({
        client_reference_id: 'order-8',
        metadata: { askgate_callback_url: callbackUrl, reference: 'order-8' },
      });
      expect((await stripe.deliver(stripe.complete(wrong.id))).json).toEqual({ status: 'accepted' });
      const job = await failedFor(wrong.id);
      expect(job.reason).toContain(`session ${wrong.id}: invalid_answer — answer does not match schema at reference`);
      expect(await statusOf(id)).toBe('pending');
      // The ticket was not consumed: the genuine confirmation answers it.
      expect((await stripe.deliver(stripe.complete(session))).json).toEqual({ status: 'accepted' });
      await until(async () => ((await statusOf(id)) === 'answered' ? true : null), 'the answer');
      const answered = await agent().get(`/api/interactions/${id}`);
      expect((answered.json['result'] as { answer: unknown }).answer).toEqual({ decision: 'confirmed', reference });
      // Retried by an operator, the refused job now meets an answered question: already_answered, no longer failed.
      const retry = await runCli(gw.url, ADMIN, ['confirmations', 'retry', job.job]);
      expect(retry.code, retry.stderr).toBe(0);
      await until(async () => {
        const items = (await admin().get('/api/confirmations/failed')).json['items'] as FailedJob[];
        return items.some((j) => j.job === job.job) ? null : true;
      }, 'the retried job to leave the failed list');
      const again = await admin().post('/api/confirmations/failed/nope/retry', {});
      expect(again.status).toBe(404);
    },
  );
});

describe('reconcile', () => {
  it('counts a pin refusal as rejected and an off-origin URL as failed; the CLI exits 1 and names the session', async () => {
    stripe.sessions.clear();
    const { id, callbackUrl } = await askDeposit();
    const wrong = stripe.addSession({
      client_reference_id: 'order-9',
      metadata: { askgate_callback_url: callbackUrl, reference: 'order-9' },
    });
    stripe.complete(wrong.id);
    const evil = stripe.addSession({
      client_reference_id: reference,
      metadata: { askgate_callback_url: 'https://attacker.example/api/interactions/callback/x', reference },
    });
    stripe.complete(evil.id);
    const run = await runCli(gw.url, ADMIN, ['confirmations', 'reconcile', '--json']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ selected: 2, answered: 0, already_answered: 0, expired: 0, rejected: 1 });
    expect(summary['failed']).toEqual([{ session: evil.id, reason: expect.stringContaining('SSRF pin') }]);
    expect(await statusOf(id)).toBe('pending');
  });

  it('needs admin, and refuses a bad lookback naming it', async () => {
    const denied = await agent().post('/api/confirmations/reconcile', {});
    expect(denied.status).toBe(403);
    expect(denied.json['message']).toContain('"admin"');
    const bad = await admin().post('/api/confirmations/reconcile', { lookback_hours: -1 });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_request', field: 'lookback_hours' });
  });
});

describe('presets', () => {
  it('refuses a write without admin, naming the scope, and keeps the versions as they were', async () => {
    const before = (await agent().get('/api/presets/deposit')).json;
    const res = await agent().put('/api/presets/deposit', depositPreset('order-666'));
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: 'forbidden' });
    expect(res.json['message']).toContain('"admin"');
    expect((await agent().get('/api/presets/deposit')).json).toEqual(before);
  });

  it('accepts the answer_format a confirmation derives ("external") and refuses a conflicting one, naming it', async () => {
    const body = depositPreset('order-ext');
    const same = await admin().put('/api/presets/ext-same', {
      ...body,
      ask: { ...(body['ask'] as object), answer_format: 'external' },
    });
    expect(same.status, JSON.stringify(same.json)).toBe(200);
    const other = await admin().put('/api/presets/ext-other', {
      ...body,
      ask: { ...(body['ask'] as object), answer_format: 'form' },
    });
    expect(other.status).toBe(400);
    expect(other.json).toEqual({
      error: 'invalid_request',
      field: 'ask.answer_format',
      message: 'ask.answer_format is derived by a confirmation preset from its reference; drop it.',
    });
    expect((await admin().get('/api/presets/ext-other')).status).toBe(404);
  });

  it('refuses a caller passing a field the preset fixes, naming it; no question and no session are made', async () => {
    const pending = (await agent().get('/api/interactions?limit=200')).json['items'] as unknown[];
    const sessions = stripe.sessions.size;
    for (const [field, value] of [
      ['schema', { type: 'object' }],
      ['verifier', { name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' }],
      ['answer_format', 'text'],
      ['question', 'Pay the attacker'],
    ] as const) {
      const res = await agent().post('/api/presets/deposit/ask', { [field]: value });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: 'fixed_by_preset',
        field,
        message: `${field} is fixed by preset deposit; drop it from the request.`,
      });
    }
    expect((await agent().get('/api/interactions?limit=200')).json['items']).toEqual(pending);
    expect(stripe.sessions.size).toBe(sessions);
  });

  it('keeps every version with who wrote it and when, and derives the pin from the one reference', async () => {
    const first = await admin().put('/api/presets/refund', depositPreset('refund-1'));
    const second = await admin().put('/api/presets/refund', depositPreset('refund-2'));
    expect([first.json, second.json]).toEqual([
      { name: 'refund', version: 1 },
      { name: 'refund', version: 2 },
    ]);
    const shown = (await agent().get('/api/presets/refund')).json;
    expect(shown).toMatchObject({ name: 'refund', version: 2, written_by: 'ops', body: depositPreset('refund-2') });
    const versions = shown['versions'] as Array<Record<string, unknown>>;
    expect(versions.map((v) => [v['version'], v['written_by'], v['body']])).toEqual([
      [1, 'ops', depositPreset('refund-1')],
      [2, 'ops', depositPreset('refund-2')],
    ]);
    expect(Date.parse(versions[0]?.['written_at'] as string)).toBeGreaterThan(Date.now() - 60_000);
    const asked = await agent().post('/api/presets/refund/ask', {});
    expect(asked.status).toBe(201);
    expect(asked.json['schema']).toEqual({
      type: 'object',
      properties: { decision: { const: 'confirmed' }, reference: { const: 'refund-2' } },
      required: ['decision', 'reference'],
      additionalProperties: false,
    });
  });

  it('refuses a confirmation preset whose ask sets what the reference derives, naming the field', async () => {
    const body = depositPreset('x');
    (body['ask'] as Record<string, unknown>)['schema'] = { type: 'object' };
    const res = await admin().put('/api/presets/drifted', body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_request', field: 'ask.schema' });
    expect((await admin().get('/api/presets/drifted')).status).toBe(404);
  });
});
