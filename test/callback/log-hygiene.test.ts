import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import type { TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { BRIDGE_SECRET, STRIPE_SECRET, door, postJson, stripeHeader } from './helpers.js';

/**
 * Tickets, tokens and secrets never reach the logs: a gateway logging at debug level (every request line) is driven
 * through asks that mint tickets, every callback verdict, a verifier that cannot run and a refused token, and the
 * captured log must contain none of them.
 */

const TOKEN = 'log-hygiene-token-0123456789abcdef';
let gateway: Gateway;
let url: string;
let gw: TestGateway;
const lines: string[] = [];

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'ops', scopes: ['read', 'write', 'answer'] } }),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE_SECRET,
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  gateway = await createGateway(config, { logger: pino({ level: 'debug' }, sink) });
  url = await gateway.listen();
  gw = { url, token: TOKEN, gateway, close: () => gateway.close() };
});
afterAll(async () => gateway?.close());

describe('log hygiene', () => {
  it('keeps tickets, tokens and secrets out of every log line', async () => {
    const http = api(url, TOKEN);
    const tickets: string[] = [];
    const ask = async (body: Record<string, unknown>): Promise<string> => {
      const res = await http.post('/api/interactions', { timeout: 60, ...body });
      expect(res.status).toBe(201);
      const ticket = new URL(res.json['callback_url'] as string).pathname.split('/').pop() as string;
      tickets.push(ticket);
      return ticket;
    };
    const plain = await ask({ question: 'Sign?', answer_format: 'external' });
    const stripeBound = await ask({
      question: 'Pay?',
      answer_format: 'external',
      verifier: { name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' },
    });
    const broken = await ask({
      question: 'Broken?',
      answer_format: 'external',
      verifier: { name: 'stripe', secret_env: 'UNSET_SECRET_FOR_TEST' },
    });
    const linked = await ask({ question: 'Link?', answer_format: 'confirm', link: true });

    await door(gw, `/api/interactions/callback/${plain}`);
    expect((await postJson(gw, `/api/interactions/callback/${plain}`, { ok: true })).status).toBe(200);
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment.completed' });
    expect(
      (
        await postJson(gw, `/api/interactions/callback/${stripeBound}`, payload, {
          'stripe-signature': stripeHeader(payload, 'whsec_wrong'),
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await postJson(gw, `/api/interactions/callback/${stripeBound}`, payload, {
          'stripe-signature': stripeHeader(payload),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await postJson(gw, `/api/interactions/callback/${broken}`, payload, {
          'stripe-signature': stripeHeader(payload),
        })
      ).status,
    ).toBe(500);
    expect((await postJson(gw, `/api/interactions/callback/${linked}`, { answer: 'not a boolean' })).status).toBe(400);
    expect((await api(url, `${TOKEN}-wrong`).get('/api/interactions')).status).toBe(401);

    const log = lines.join('');
    // The requests above were logged (so the check below reads real log lines, not an empty sink).
    expect(log).toContain('/api/interactions/callback/[ticket]');
    expect(log).toMatch(/a bound verifier cannot run/);
    for (const secret of [...tickets, TOKEN, STRIPE_SECRET, BRIDGE_SECRET]) expect(log).not.toContain(secret);
  });
});
