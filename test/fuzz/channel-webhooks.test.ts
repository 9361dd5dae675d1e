import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';
import { STRIPE_WHSEC, stripeSignature } from '../fakes/stripe-server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { replyUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { ACCOUNT_SID, AUTH_TOKEN, signTwilio, startFakeTwilio, type FakeTwilio } from '../fakes/twilio-server.js';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph } from '../fakes/whatsapp-graph.js';
import { APP_SECRET, PHONE_NUMBER_ID, VERIFY_TOKEN, WABA_ID, textReply } from '../fakes/whatsapp-webhooks.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import {
  anyJson,
  call,
  edgyString,
  expectWellRefused,
  fuzzParameters,
  fuzzTimeout,
  mutate,
  mutation,
} from './fuzz-helpers.js';

/**
 * Fuzzing the channel webhooks with VALID signatures over random and mutated bodies, so every case passes the
 * signature check and reaches the parsing behind it: Telegram, Slack (events and interactions), WhatsApp, Twilio
 * and the Stripe ingress. Never a 5xx, the gateway alive after each case, and a JSON 4xx names its field.
 */

const TG_SECRET = 'fuzz-tg-secret_0123456789';
const SLACK_SECRET = 'fuzz-slack-signing-secret-0123456789';
const PUBLIC_BASE = 'https://askgate.example.com';
let tg: FakeTelegram;
let slack: FakeSlack;
let graph: FakeGraph;
let twilio: FakeTwilio;
let gw: TestGateway;
let redis: RedisServerHandle;
/** Real inbound bodies that answer real pending questions: what the mutations start from. */
const bases: { telegram: unknown[]; whatsapp: unknown[]; slack: unknown[] } = { telegram: [], whatsapp: [], slack: [] };

beforeAll(async () => {
  [tg, slack, graph, twilio] = await Promise.all([
    startFakeTelegram({ token: '123456:FUZZ-token' }),
    startFakeSlack({ token: 'xoxb-fuzz' }),
    startFakeGraph(),
    startFakeTwilio(),
  ]);
  redis = await startRedisServer();
  gw = await startTestGateway({
    INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    TELEGRAM_BOT_TOKEN: '123456:FUZZ-token',
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: tg.apiRoot,
    SLACK_BOT_TOKEN: 'xoxb-fuzz',
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_URL: slack.apiUrl,
    WHATSAPP_TOKEN: GRAPH_TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_BUSINESS_ACCOUNT_ID: WABA_ID,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_API_URL: graph.apiUrl,
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: twilio.apiUrl,
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    // The Stripe ingress keeps an accepted event on a durable store only.
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{fzc}:',
  });
  const ask = async (body: Record<string, unknown>) => {
    const res = await call(`${gw.url}/api/interactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await ask({ question: 'Ship?', answer_format: 'confirm', channel: 'telegram', recipient: '4242' });
  await ask({ question: 'Say', answer_format: 'text', channel: 'telegram', recipient: '4242' });
  for (const m of tg.messagesIn('4242')) {
    if (m.reply_markup !== undefined) bases.telegram.push(tapUpdate(m, { data: 'x' }));
    bases.telegram.push(replyUpdate(m, { text: 'an answer' }));
  }
  await ask({ question: 'Say', answer_format: 'text', channel: 'whatsapp', recipient: '+447700900123' });
  bases.whatsapp.push(textReply('447700900123', 'yes', graph.sent[0]?.id));
  bases.slack.push(
    {
      type: 'event_callback',
      event: { type: 'message', channel: 'C1', user: 'U1', text: 'hi', ts: '1.2', thread_ts: '1.1' },
    },
    {
      type: 'block_actions',
      user: { id: 'U1', username: 'ada', team_id: 'T1' },
      container: { type: 'message', channel_id: 'C1', message_ts: '1.1' },
      actions: [{ type: 'button', action_id: 'answer', block_id: 'b', value: 'x' }],
    },
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([tg?.close(), slack?.close(), graph?.close(), twilio?.close()]);
  await redis?.stop();
});

async function alive(): Promise<void> {
  expect((await call(`${gw.url}/healthz`, {})).status).toBe(200);
}

const bodyFrom = (base: unknown[]) =>
  fc.oneof(
    anyJson,
    fc
      .tuple(fc.constantFrom(...base), fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([b, m]) => mutate(b, m)),
  );

describe('channel webhooks with valid signatures over random bodies', () => {
  it(
    'Telegram: never a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyFrom(bases.telegram), async (update) => {
          const res = await call(`${gw.url}/channels/telegram/webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
            body: JSON.stringify(update),
          });
          expectWellRefused(res.status, res.body, `telegram ${JSON.stringify(update).slice(0, 300)}`);
          await alive();
        }),
        fuzzParameters('POST /channels/telegram/webhook'),
      );
    },
    fuzzTimeout(),
  );

  const slackHeaders = (body: string, type: string) => {
    const ts = Math.floor(Date.now() / 1000);
    return {
      'content-type': type,
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${ts}:${body}`).digest('hex')}`,
    };
  };

  it(
    'Slack events (JSON) and interactions (form-encoded payload): never a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyFrom(bases.slack), fc.boolean(), fc.boolean(), async (value, asEvent, rawForm) => {
          const body = asEvent
            ? JSON.stringify(value)
            : rawForm
              ? new URLSearchParams(
                  Object.entries(typeof value === 'object' && value !== null ? value : { v: value }).map(([k, v]) => [
                    k,
                    JSON.stringify(v) ?? '',
                  ]),
                ).toString()
              : new URLSearchParams({ payload: JSON.stringify(value) ?? '' }).toString();
          const path = asEvent ? '/channels/slack/events' : '/channels/slack/interactions';
          const type = asEvent ? 'application/json' : 'application/x-www-form-urlencoded';
          const res = await call(`${gw.url}${path}`, { method: 'POST', headers: slackHeaders(body, type), body });
          expectWellRefused(res.status, res.body, `slack ${path} ${body.slice(0, 300)}`);
          await alive();
        }),
        fuzzParameters('POST /channels/slack/*'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'WhatsApp: never a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyFrom(bases.whatsapp), async (value) => {
          const body = JSON.stringify(value);
          const res = await call(`${gw.url}/channels/whatsapp/webhook`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
            },
            body,
          });
          expectWellRefused(res.status, res.body, `whatsapp ${body.slice(0, 300)}`);
          await alive();
        }),
        fuzzParameters('POST /channels/whatsapp/webhook'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'WhatsApp verification handshake with random query strings: never a 5xx',
    async () => {
      const query = fc
        .array(
          fc.tuple(fc.oneof(edgyString, fc.constantFrom('hub.mode', 'hub.verify_token', 'hub.challenge')), edgyString),
          { maxLength: 4 },
        )
        .map((entries) => new URLSearchParams(entries).toString());
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const res = await call(`${gw.url}/channels/whatsapp/webhook?${q}`, {});
          expectWellRefused(res.status, res.body, `whatsapp GET ?${q}`);
        }),
        fuzzParameters('GET /channels/whatsapp/webhook'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'the Stripe ingress: never a 5xx',
    async () => {
      const event = {
        id: 'evt_1',
        object: 'event',
        type: 'checkout.session.completed',
        created: 1_700_000_000,
        data: { object: { id: 'cs_1', object: 'checkout.session', client_reference_id: 'x', payment_status: 'paid' } },
      };
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            anyJson,
            fc.array(mutation, { minLength: 1, maxLength: 3 }).map((m) => mutate(event, m)),
          ),
          async (value) => {
            const body = JSON.stringify(value);
            const res = await call(`${gw.url}/webhooks/stripe`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'stripe-signature': stripeSignature(body, STRIPE_WHSEC, Math.floor(Date.now() / 1000)),
              },
              body,
            });
            expectWellRefused(res.status, res.body, `stripe ${body.slice(0, 300)}`);
            await alive();
          },
        ),
        fuzzParameters('POST /webhooks/stripe'),
      );
    },
    fuzzTimeout(),
  );

  it(
    'Twilio SMS and status callbacks (form-encoded): never a 5xx',
    async () => {
      const base = {
        From: '+447700900123',
        To: '+15005550006',
        Body: 'yes',
        MessageSid: 'SM1',
        AccountSid: ACCOUNT_SID,
      };
      const params = fc.oneof(
        fc.dictionary(
          fc.oneof(edgyString, fc.constantFrom(...Object.keys(base), 'MessageStatus', 'ErrorCode')),
          edgyString,
          {
            maxKeys: 8,
          },
        ),
        fc
          .array(fc.tuple(fc.constantFrom(...Object.keys(base), 'MessageStatus', 'ErrorCode'), edgyString), {
            maxLength: 3,
          })
          .map((sets) => ({ ...base, ...Object.fromEntries(sets) })),
      );
      await fc.assert(
        fc.asyncProperty(
          params,
          fc.constantFrom('/channels/twilio/sms', '/channels/twilio/status'),
          async (p, path) => {
            const res = await call(`${gw.url}${path}`, {
              method: 'POST',
              headers: {
                'content-type': 'application/x-www-form-urlencoded',
                'x-twilio-signature': signTwilio(`${PUBLIC_BASE}${path}`, p),
              },
              body: new URLSearchParams(p).toString(),
            });
            expectWellRefused(res.status, res.body, `twilio ${path} ${JSON.stringify(p).slice(0, 300)}`);
            await alive();
          },
        ),
        fuzzParameters('POST /channels/twilio/*'),
      );
    },
    fuzzTimeout(),
  );
});
