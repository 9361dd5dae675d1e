import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient } from 'askgate-sdk';
import { api } from '../helpers/http.js';
import type { TestGateway } from '../helpers/gateway.js';
import {
  askFor,
  BRIDGE_SECRET,
  door,
  postJson,
  recordOf,
  startCallbackGateway,
  STRIPE_SECRET,
  stripeHeader,
} from './helpers.js';

/** Every verdict of the public callback door (docs/callback.md, "Verdicts"), for a plain ticket and a verifier-bound one. */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startCallbackGateway({ INTERACTIONS_IDLE_TTL_SECONDS: '2' });
});
afterAll(async () => gw?.close());

const pin = {
  type: 'object',
  required: ['reference', 'decision'],
  properties: { reference: { const: 'ord_42' }, decision: { const: 'confirmed' } },
};
const stripeBinding = { name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' };
const signed = (payload: string, secret = STRIPE_SECRET, t?: number) => ({
  'stripe-signature': stripeHeader(payload, secret, t),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a plain (unbound) ticket', () => {
  it('400s a const-pin mismatch without consuming the ticket; the right answer then wins; a replay is already_answered', async () => {
    const { id, path } = await askFor(gw, { question: 'Confirm order 42', answer_format: 'external', schema: pin });
    const wrong = await postJson(gw, path, { reference: 'ord_43', decision: 'confirmed' });
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_answer', field: 'reference' });
    expect((await recordOf(gw, id))['status']).toBe('pending');
    const right = await postJson(gw, path, { reference: 'ord_42', decision: 'confirmed' });
    expect(right.status).toBe(200);
    expect(right.json()).toEqual({ status: 'answered' });
    expect(await recordOf(gw, id)).toMatchObject({
      status: 'answered',
      result: { answer: { reference: 'ord_42', decision: 'confirmed' }, surface: 'callback' },
    });
    expect((await postJson(gw, path, { reference: 'ord_42', decision: 'confirmed' })).json()).toEqual({
      status: 'already_answered',
    });
    // Any later payload is already_answered too, and changes nothing.
    expect((await postJson(gw, path, { anything: true })).json()).toEqual({ status: 'already_answered' });
  });

  it('404s an unknown ticket and a garbage one', async () => {
    expect((await postJson(gw, `/api/interactions/callback/${'A'.repeat(43)}`, {})).status).toBe(404);
    expect((await postJson(gw, '/api/interactions/callback/..%2F..', {})).status).toBe(404);
  });

  it('404s an expired ticket', async () => {
    const { path } = await askFor(gw, { question: 'Quick', answer_format: 'external', timeout: 0.3 });
    await sleep(600);
    const res = await postJson(gw, path, { ok: true });
    expect(res.status).toBe(404);
    expect(res.json()['error']).toBe('not_found');
  });

  it('answers already_answered for the idle TTL, then 404', async () => {
    const { path } = await askFor(gw, { question: 'TTL', answer_format: 'external' });
    expect((await postJson(gw, path, { n: 1 })).json()).toEqual({ status: 'answered' });
    expect((await postJson(gw, path, { n: 2 })).json()).toEqual({ status: 'already_answered' });
    await sleep(2300);
    expect((await postJson(gw, path, { n: 3 })).status).toBe(404);
  });

  it('takes {"answer": ...} for the other formats, as the answer door does', async () => {
    const { id, path } = await askFor(gw, { question: 'Ship?', answer_format: 'confirm', link: true });
    expect((await postJson(gw, path, true)).status).toBe(400);
    expect((await postJson(gw, path, { answer: true })).json()).toEqual({ status: 'answered' });
    expect((await recordOf(gw, id))['result']).toMatchObject({
      answer: true,
      surface: 'callback',
      answered_by: 'callback',
    });
  });

  it('caps the body at 1 MiB and refuses a body that is not JSON', async () => {
    const { path } = await askFor(gw, { question: 'Big', answer_format: 'external' });
    expect((await postJson(gw, path, JSON.stringify({ x: 'a'.repeat(1024 * 1024) }))).status).toBe(413);
    expect((await postJson(gw, path, '{nope')).status).toBe(400);
    expect(
      (await door(gw, path, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })).status,
    ).toBe(400);
  });

  it('a form post the server refuses shows every refused field its own message, and answers nothing', async () => {
    const schema = {
      type: 'object',
      properties: { amount: { type: 'integer', minimum: 1 }, name: { type: 'string' } },
      required: ['amount', 'name'],
    };
    const { id, path } = await askFor(gw, { question: 'Refund?', answer_format: 'form', schema, link: true });
    const posted = await door(gw, path, {
      method: 'POST',
      body: 'amount=0',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(posted.status).toBe(400);
    const shown = [...posted.body.matchAll(/class="field-error"[^>]*>([^<]+)</g)].map((m) => m[1]);
    // The page's own words for each field (forms/messages.ts), the two at once: not only the first the server found.
    expect(shown).toEqual(['Enter a number of at least 1.', 'This field is required.']);
    expect((await recordOf(gw, id))['status']).toBe('pending');
  });

  it('the confirm page of an external question answers {"confirmed": true} with a form post', async () => {
    const { id, path } = await askFor(gw, { question: 'Did you <b>sign</b>?', answer_format: 'external' });
    const page = await door(gw, path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.body).toContain('Did you &lt;b&gt;sign&lt;/b&gt;?');
    expect(page.body).not.toContain('<b>sign');
    const posted = await door(gw, path, {
      method: 'POST',
      body: 'confirmed=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(posted.status).toBe(200);
    expect(posted.body).toContain('your answer was sent');
    expect((await recordOf(gw, id))['result']).toMatchObject({ answer: { confirmed: true } });
    expect((await door(gw, path)).body).toContain('already answered');
  });
});

describe('a verifier-bound ticket', () => {
  it(
    'stripe: a signed delivery answers; wrong secret, stale timestamp and no signature are 401; a ' +
      'replay is already_answered',
    async () => {
      const { id, path } = await askFor(gw, {
        question: 'Pay',
        answer_format: 'external',
        schema: pin,
        verifier: stripeBinding,
      });
      const payload = JSON.stringify({ reference: 'ord_42', decision: 'confirmed' });
      expect((await postJson(gw, path, payload, signed(payload, 'whsec_wrong'))).status).toBe(401);
      const stale = Math.floor(Date.now() / 1000) - 400;
      expect((await postJson(gw, path, payload, signed(payload, STRIPE_SECRET, stale))).status).toBe(401);
      expect((await postJson(gw, path, payload)).json()['error']).toBe('verifier_refused');
      expect((await recordOf(gw, id))['status']).toBe('pending');
      const headers = signed(payload);
      expect((await postJson(gw, path, payload, headers)).json()).toEqual({ status: 'answered' });
      expect((await recordOf(gw, id))['result']).toMatchObject({ answered_by: 'verifier:stripe', surface: 'callback' });
      // The captured delivery, replayed: absorbed by ticket state.
      const replay = await postJson(gw, path, payload, headers);
      expect(replay.status).toBe(200);
      expect(replay.json()).toEqual({ status: 'already_answered' });
      // Without the secret, an answered ticket reads exactly like a live one: 401, verified before state is revealed.
      const unsigned = await postJson(gw, path, payload);
      expect(unsigned.status).toBe(401);
    },
  );

  it('stripe: a signed const-pin mismatch is 400 and leaves the ticket live; the correct answer then wins', async () => {
    const { id, path } = await askFor(gw, {
      question: 'Pay',
      answer_format: 'external',
      schema: pin,
      verifier: stripeBinding,
    });
    const forged = JSON.stringify({ reference: 'ord_1', decision: 'confirmed' });
    const res = await postJson(gw, path, forged, signed(forged));
    expect(res.status).toBe(400);
    expect(res.json()['error']).toBe('invalid_answer');
    expect((await recordOf(gw, id))['status']).toBe('pending');
    const good = JSON.stringify({ reference: 'ord_42', decision: 'confirmed' });
    expect((await postJson(gw, path, good, signed(good))).json()).toEqual({ status: 'answered' });
  });

  it('stripe: a rotated secret (two v1 signatures) is accepted', async () => {
    const { path } = await askFor(gw, { question: 'Pay', answer_format: 'external', verifier: stripeBinding });
    const payload = '{"id":"evt_rot"}';
    const t = Math.floor(Date.now() / 1000);
    const v1 = (secret: string) => stripeHeader(payload, secret, t).split(',')[1];
    const header = `t=${t},${v1('whsec_old_one')},${v1(STRIPE_SECRET)}`;
    expect((await postJson(gw, path, payload, { 'stripe-signature': header })).json()).toEqual({ status: 'answered' });
  });

  it('stripe: a missing secret env is 500, for a live and for an answered ticket alike', async () => {
    const binding = { name: 'stripe', secret_env: 'STRIPE_SECRET_NOT_SET' };
    const { id, path } = await askFor(gw, { question: 'Pay', answer_format: 'external', verifier: binding });
    const payload = '{"ok":true}';
    const live = await postJson(gw, path, payload, signed(payload));
    expect(live.status).toBe(500);
    expect(live.json()['error']).toBe('verifier_unavailable');
    await api(gw.url, gw.token).post(`/api/interactions/${id}/answer`, { answer: { ok: true } });
    const answered = await postJson(gw, path, payload, signed(payload));
    expect(answered.status).toBe(500);
    expect(answered.body).toBe(live.body);
  });

  it('shared_secret: the bridge secret answers; a wrong one is 401; unset on the gateway it is 500', async () => {
    const { path } = await askFor(gw, {
      question: 'Bridge',
      answer_format: 'external',
      verifier: { name: 'shared_secret' },
    });
    expect((await postJson(gw, path, { ok: 1 }, { 'x-tai-bridge-secret': 'nope' })).status).toBe(401);
    expect((await postJson(gw, path, { ok: 1 }, { 'x-tai-bridge-secret': BRIDGE_SECRET })).json()).toEqual({
      status: 'answered',
    });
    expect((await postJson(gw, path, { ok: 1 }, { 'x-tai-bridge-secret': BRIDGE_SECRET })).json()).toEqual({
      status: 'already_answered',
    });
    const bare = await startCallbackGateway({ TAI_BRIDGE_CALLBACK_SECRET: '' });
    try {
      const other = await askFor(bare, {
        question: 'Bridge',
        answer_format: 'external',
        verifier: { name: 'shared_secret' },
      });
      expect((await postJson(bare, other.path, { ok: 1 }, { 'x-tai-bridge-secret': BRIDGE_SECRET })).status).toBe(500);
    } finally {
      await bare.close();
    }
  });

  it('an unknown ticket is 404 whatever the headers', async () => {
    const payload = '{}';
    expect((await postJson(gw, `/api/interactions/callback/${'B'.repeat(43)}`, payload, signed(payload))).status).toBe(
      404,
    );
  });

  it('the binding is checked at ask time and never shown', async () => {
    const client = api(gw.url, gw.token);
    const unknown = await client.post('/api/interactions', {
      question: 'x',
      answer_format: 'external',
      verifier: { name: 'nope' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json['field']).toBe('verifier');
    const malformed = await client.post('/api/interactions', {
      question: 'x',
      answer_format: 'external',
      verifier: { name: 'stripe' },
    });
    expect(malformed.status).toBe(400);
    const ok = await client.post('/api/interactions', {
      question: 'x',
      answer_format: 'external',
      verifier: stripeBinding,
    });
    expect(ok.json['verifier']).toEqual({ name: 'stripe' });
  });
});

describe('the ticket-state oracle', () => {
  it('GET gives byte-identical 404s for unknown, live, answered and expired verifier-bound tickets', async () => {
    const bound = { answer_format: 'external', verifier: { name: 'shared_secret' } };
    const live = await askFor(gw, { question: 'live', ...bound });
    const answered = await askFor(gw, { question: 'answered', ...bound });
    await postJson(gw, answered.path, { ok: 1 }, { 'x-tai-bridge-secret': BRIDGE_SECRET });
    const expired = await askFor(gw, { question: 'expired', ...bound, timeout: 0.2 });
    await sleep(500);
    const paths = [`/api/interactions/callback/${'C'.repeat(43)}`, live.path, answered.path, expired.path];
    const responses = await Promise.all(paths.map((p) => door(gw, p)));
    const shape = (r: Awaited<ReturnType<typeof door>>) => ({
      status: r.status,
      body: r.body,
      headers: [...r.headers.entries()].filter(([k]) => k !== 'date'),
    });
    const first = shape(responses[0]!);
    expect(first.status).toBe(404);
    for (const r of responses) expect(shape(r)).toEqual(first);
  });
});

describe('an external question end to end', () => {
  it('is answered by a signed POST from an outside system, through the SDK askExternal', async () => {
    const client = new AskgateClient({ url: gw.url, token: gw.token });
    // The "outside system": it is handed the callback URL, and later POSTs its signed event there.
    let shown = '';
    const answer = await client.askExternal<{ reference: string; decision: string }>({
      question: 'Pay the deposit for order 42',
      schema: pin,
      verifier: stripeBinding,
      timeout: 20,
      build: (callbackUrl) => {
        const ticketPath = new URL(callbackUrl).pathname;
        setTimeout(() => {
          const payload = JSON.stringify({ reference: 'ord_42', decision: 'confirmed' });
          void postJson(gw, ticketPath, payload, signed(payload));
        }, 100);
        return 'https://pay.example/checkout/cs_42';
      },
      present: (url) => {
        shown = url;
      },
    });
    expect(shown).toBe('https://pay.example/checkout/cs_42');
    expect(answer.answer).toEqual({ reference: 'ord_42', decision: 'confirmed' });
    expect(answer.url).toBe(shown);
  });

  it('takes a link template: {callback_url} filled in, encoded, and the outside system answers through it', async () => {
    const client = new AskgateClient({ url: gw.url, token: gw.token });
    let shown = '';
    const answer = await client.askExternal<{ reference: string; decision: string }>({
      question: 'Pay the deposit for order 43',
      schema: pin,
      verifier: stripeBinding,
      timeout: 20,
      build: 'https://pay.example/checkout?order=43&return={callback_url}',
      present: (url) => {
        shown = url;
        // The outside system reads its return URL from the link it was given, and POSTs its signed event there.
        const callback = new URL(new URL(url).searchParams.get('return') as string);
        const payload = JSON.stringify({ reference: 'ord_42', decision: 'confirmed' });
        setTimeout(() => void postJson(gw, callback.pathname, payload, signed(payload)), 100);
      },
    });
    expect(shown).toMatch(
      /^https:\/\/pay\.example\/checkout\?order=43&return=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fapi%2Finteractions%2Fcallback%2F/,
    );
    expect(answer.answer).toEqual({ reference: 'ord_42', decision: 'confirmed' });
    expect(answer.url).toBe(shown);
  });

  it('refuses a link template without {callback_url} before asking anything', async () => {
    const client = new AskgateClient({ url: gw.url, token: gw.token });
    const before = (await client.list()).items.length;
    await expect(
      client.askExternal({ question: 'no placeholder', build: 'https://pay.example/checkout' }),
    ).rejects.toThrow(
      'build "https://pay.example/checkout" has no {callback_url}: the outside system could never answer; put it in the link.',
    );
    expect((await client.list()).items.length).toBe(before);
  });

  it('cancels the ask when building the outside resource fails', async () => {
    const client = new AskgateClient({ url: gw.url, token: gw.token });
    let id = '';
    await expect(
      client.askExternal({
        question: 'build fails',
        build: () => {
          throw new Error('provider down');
        },
      }),
    ).rejects.toThrow('provider down');
    const page = await client.list();
    id = page.items.find((i) => i.question === 'build fails')?.id ?? '';
    expect(id).toBe('');
  });
});
