import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_SID, AUTH_TOKEN, startFakeTwilio, type FakeTwilio } from '../fakes/twilio-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { PUBLIC_BASE, SMS_FROM, WA_FROM, freshPhone, startTwilioWorld, type TwilioWorld } from './twilio-harness.js';

/**
 * What Twilio reports after a send, and what askgate does with it (channels/twilio/README.md; docs/doors.md,
 * "deliveries"): a message Twilio reports `undelivered` or `failed` (its status callback carrying ErrorCode) marks
 * that delivery `failed` with the code, and a question whose only surface it was becomes `undeliverable`; one that
 * is also on another surface does not. And a 429 (error 20429) from the REST API on a deployment with a shared
 * budget (Redis) is retried, not reported to the asker.
 */

type Rec = Record<string, unknown>;

const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 500; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never: ${what}`);
};

describe('Twilio: failed and undelivered status callbacks', () => {
  let w: TwilioWorld;
  beforeAll(async () => {
    w = await startTwilioWorld();
  });
  afterAll(async () => w?.close());

  const askFailing = async (status: 'failed' | 'undelivered', code: string): Promise<{ id: string; to: string }> => {
    const to = freshPhone();
    w.fake.failDeliveries(to, status, code);
    const { id } = await w.ask({ question: 'Reachable?', answer_format: 'confirm', recipient: to });
    return { id, to };
  };

  it('an undelivered SMS (30003) marks its delivery failed with the code, and the question undeliverable', async () => {
    const { id, to } = await askFailing('undelivered', '30003');
    const record = await until('undeliverable', async () => {
      const r = await w.record(id);
      return r['undeliverable'] === true ? r : undefined;
    });
    expect(record['status']).toBe('pending');
    expect(record['deliveries']).toEqual([
      expect.objectContaining({
        channel: 'twilio',
        recipient: to,
        status: 'failed',
        error: expect.objectContaining({ code: '30003' }),
      }),
    ]);
  });

  it('a failed SMS (30008) does the same', async () => {
    const { id } = await askFailing('failed', '30008');
    const record = await until('undeliverable', async () => {
      const r = await w.record(id);
      return r['undeliverable'] === true ? r : undefined;
    });
    expect((record['deliveries'] as Rec[])[0]).toMatchObject({ status: 'failed', error: { code: '30008' } });
  });

  it('a waiter on the result door returns at once with the undeliverable record', async () => {
    const { id } = await askFailing('undelivered', '30005');
    const res = await w.http.get(`/api/interactions/${id}/result?wait=30`);
    expect(res.status).toBe(200);
    expect(res.json['undeliverable']).toBe(true);
  });

  it('a question also on the web chat is not undeliverable when its SMS fails', async () => {
    const to = freshPhone();
    w.fake.failDeliveries(to, 'undelivered', '30003');
    const res = await w.http.post('/api/interactions', {
      question: 'Two ways?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'twilio', recipient: to },
        { channel: 'web', recipient: `person-${to}` },
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json['id'] as string;
    const record = await until('the failed SMS delivery', async () => {
      const r = await w.record(id);
      const failed = ((r['deliveries'] as Rec[] | undefined) ?? []).find((d) => d['status'] === 'failed');
      return failed === undefined ? undefined : r;
    });
    expect(record['undeliverable']).toBeUndefined();
    expect(record['status']).toBe('pending');
  });

  it('a delivered SMS is not failed: sent, then delivered', async () => {
    const q = await w.ask({ question: 'Fine?', answer_format: 'confirm' });
    const record = await until('delivered', async () => {
      const r = await w.record(q.id);
      return (r['deliveries'] as Rec[])[0]?.['status'] === 'delivered' ? r : undefined;
    });
    expect(record['undeliverable']).toBeUndefined();
  });
});

describe('Twilio: a 429 from the REST API, with the shared budget (Redis)', () => {
  let redis: RedisServerHandle;
  let fake: FakeTwilio;
  let gw: TestGateway;
  let http: Api;
  beforeAll(async () => {
    redis = await startRedisServer();
    fake = await startFakeTwilio();
    gw = await startTestGateway({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `{tw429-${process.pid}}:`,
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_FROM: SMS_FROM,
      TWILIO_WHATSAPP_FROM: WA_FROM,
      TWILIO_API_URL: fake.apiUrl,
      INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    });
    http = api(gw.url, gw.token);
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await redis?.stop();
  });

  it('is retried after the push-back: the asker gets its 201 and the message is sent once', async () => {
    const to = freshPhone();
    fake.tooManyRequests(1);
    const res = await http.post('/api/interactions', {
      question: 'Through the 429?',
      answer_format: 'confirm',
      channel: 'twilio',
      recipient: to,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(fake.refused429).toBe(1);
    expect(fake.sentTo(to)).toHaveLength(1);
  });

  it('gives up after two retries: three 429s in a row are a 502 naming Twilio', async () => {
    const to = freshPhone();
    const before = fake.refused429;
    fake.tooManyRequests(3);
    const res = await http.post('/api/interactions', {
      question: 'Past three 429s?',
      answer_format: 'confirm',
      channel: 'twilio',
      recipient: to,
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: 'twilio' });
    expect(fake.refused429 - before).toBe(3);
    expect(fake.sentTo(to)).toHaveLength(0);
  });
});
