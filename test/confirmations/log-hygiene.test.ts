import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { startFakeStripe, STRIPE_KEY, STRIPE_WHSEC, type FakeStripe } from '../fakes/stripe-server.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { ADMIN, AGENT, BRIDGE, depositPreset, freePort, TOKENS, until } from './helpers.js';

/**
 * Confirmations log what an operator needs (accepted events, bridge failures, reconcile summaries) and never a
 * ticket, a token or a secret: a gateway logging at debug level is driven through an accepted event, bridge
 * refusals (off-origin, pin mismatch), a forged event and a reconcile run with failures.
 */

let redis: RedisServerHandle;
let stripe: FakeStripe;
let gateway: Gateway;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  [redis, stripe] = await Promise.all([startRedisServer(), startFakeStripe()]);
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{log-confirm}:',
    ASKGATE_TOKENS: TOKENS,
    INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    INTERACTIONS_CALLBACK_RATE: '10000/60',
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    STRIPE_API_URL: stripe.apiUrl,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE,
    ASKGATE_RECONCILE_INTERVAL_MS: '0',
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  gateway = await createGateway(config, { logger: pino({ level: 'debug' }, sink) });
  url = await gateway.listen();
  stripe.webhookUrl = `${url}/webhooks/stripe`;
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([stripe?.close(), redis?.stop()]);
});

describe('confirmation logs', () => {
  it('carry sessions and reasons, never tickets, tokens or secrets', async () => {
    expect((await api(url, ADMIN).put('/api/presets/deposit', depositPreset('log-1'))).status).toBe(200);
    const asked = await api(url, AGENT).post('/api/presets/deposit/ask', { timeout: 60 });
    const session = [...stripe.sessions.values()].find((s) => s.url === asked.json['confirmation_url']);
    const callbackUrl = session?.metadata['askgate_callback_url'] as string;
    const ticket = callbackUrl.split('/').pop() as string;

    const wrong = stripe.addSession({
      client_reference_id: 'log-2',
      metadata: { askgate_callback_url: callbackUrl, reference: 'log-2' },
    });
    const evil = stripe.addSession({
      client_reference_id: 'log-1',
      metadata: {
        askgate_callback_url: `https://evil.example/api/interactions/callback/${ticket}`,
        reference: 'log-1',
      },
    });
    await stripe.deliver(stripe.complete(wrong.id));
    await stripe.deliver(stripe.complete(evil.id));
    const good = stripe.complete(session?.id as string);
    await stripe.deliver(good, `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`);
    await stripe.deliver(good);
    await until(
      async () =>
        (await api(url, AGENT).get(`/api/interactions/${asked.json['id'] as string}`)).json['status'] === 'answered'
          ? true
          : null,
      'the answer',
    );
    await until(
      async () =>
        ((await api(url, ADMIN).get('/api/confirmations/failed')).json['items'] as unknown[]).length === 2
          ? true
          : null,
      'two failed jobs',
    );
    const run = await api(url, ADMIN).post('/api/confirmations/reconcile', {});
    // Once answered, the door reports already_answered before it reads a payload: the mismatch no longer matters.
    expect(run.json).toMatchObject({ selected: 3, answered: 0, already_answered: 2, expired: 0, rejected: 0 });
    expect(run.json['failed']).toEqual([{ session: evil.id, reason: expect.stringContaining('SSRF pin') }]);

    const log = lines.join('');
    expect(log).toContain('confirmation event accepted');
    expect(log).toContain('confirmation bridge failed');
    expect(log).toContain('reconcile run finished with failures');
    for (const secret of [ticket, STRIPE_KEY, STRIPE_WHSEC, BRIDGE, ADMIN, AGENT]) expect(log).not.toContain(secret);
  });
});
