import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient, AskUndeliverableError } from 'askgate-sdk';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph, type SentMessage } from '../fakes/whatsapp-graph.js';
import {
  APP_SECRET,
  PHONE_NUMBER_ID,
  VERIFY_TOKEN,
  WABA_ID,
  postWebhook,
  statusUpdate,
} from '../fakes/whatsapp-webhooks.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { until } from '../park/helpers.js';

/**
 * A delivery the platform fails after the send (docs/channels.md, "Delivery receipts"), with `askgate serve` and
 * `askgate worker` as separate processes on one redis-server: WhatsApp's 131047 as a failed receipt makes the
 * question undeliverable — the blocked SDK caller raises at once, naming the code — unless a template is
 * configured, which then carries the question instead.
 */

const TOKEN = 'undeliverable-token-0123456789abcdef';
const REENGAGEMENT = { code: 131047, title: 'Re-engagement message' };

let redis: RedisServerHandle;
let graph: FakeGraph;
let plain: GatewayProcess;
let worker: GatewayProcess;
let templated: GatewayProcess;

const envFor = (prefix: string, extra: Record<string, string> = {}): Record<string, string> => ({
  REDIS_URL: redis.url,
  ASKGATE_REDIS_PREFIX: prefix,
  ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'agent', scopes: ['read', 'write', 'answer'] } }),
  INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
  WHATSAPP_TOKEN: GRAPH_TOKEN,
  WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
  WHATSAPP_BUSINESS_ACCOUNT_ID: WABA_ID,
  WHATSAPP_APP_SECRET: APP_SECRET,
  WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
  WHATSAPP_API_URL: graph.apiUrl,
  ...extra,
});

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  graph = await startFakeGraph({ templates: { question_v1: { language: 'en_US', bodyParameters: 1 } } });
  [plain, worker, templated] = await Promise.all([
    spawnGateway('serve', envFor('{un}:')),
    spawnGateway('worker', envFor('{un}:')),
    spawnGateway('serve', envFor('{un-t}:', { WHATSAPP_TEMPLATE_NAME: 'question_v1' })),
  ]);
});

afterAll(async () => {
  await Promise.all([plain?.stop(), worker?.stop(), templated?.stop()]);
  await graph?.close();
  await redis?.stop();
});

let seq = 15_557_770_000;

async function sentTo(to: string, n: number): Promise<SentMessage[]> {
  await until(() => graph.sentTo(to).length >= n, `${n} message(s) to ${to}`);
  return graph.sentTo(to);
}

describe('a WhatsApp question whose delivery fails after the send', () => {
  it('raises in the blocked SDK caller within seconds of the failed receipt, naming 131047', async () => {
    const client = new AskgateClient({ url: plain.url as string, token: TOKEN });
    const to = String(++seq);
    let id = '';
    const asked = client
      .ask(
        {
          question: 'Approve the refund?',
          answer_format: 'confirm',
          channel: 'whatsapp',
          recipient: `+${to}`,
          timeout: 120,
        },
        { onCreated: (record) => (id = record.id) },
      )
      .then(
        () => null,
        (err: unknown) => err,
      );
    const [question] = await sentTo(to, 1);
    // The ask's answer (201) comes once the delivery is recorded: a receipt before that names no known message.
    await until(() => id !== '', 'the ask to be created');
    // A receipt for a message askgate never sent changes nothing, and the caller keeps waiting.
    expect(await postWebhook(plain.url as string, statusUpdate('wamid.unknown', to, 'failed', REENGAGEMENT))).toBe(200);
    expect(await postWebhook(plain.url as string, statusUpdate(question?.id as string, to, 'sent'))).toBe(200);
    const failedAt = Date.now();
    expect(
      await postWebhook(plain.url as string, statusUpdate(question?.id as string, to, 'failed', REENGAGEMENT)),
    ).toBe(200);
    const err = await asked;
    expect(Date.now() - failedAt).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(AskUndeliverableError);
    expect((err as AskUndeliverableError).code).toBe('131047');
    expect((err as Error).message).toContain('131047');

    // A late receipt never moves a failed delivery back; the question stays pending, and the inbox may still answer.
    expect(await postWebhook(plain.url as string, statusUpdate(question?.id as string, to, 'read'))).toBe(200);
    const http = api(plain.url as string, TOKEN);
    const started = Date.now();
    const waited = await http.get(`/api/interactions/${id}/result?wait=30`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waited.json).toMatchObject({
      status: 'pending',
      undeliverable: true,
      deliveries: [
        {
          channel: 'whatsapp',
          recipient: `+${to}`,
          message_id: question?.id,
          status: 'failed',
          error: { code: '131047', message: 'Re-engagement message' },
        },
      ],
    });
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).json).toEqual({ status: 'answered' });
  });

  it('with WHATSAPP_TEMPLATE_NAME set, re-sends the question through the template, and the caller gets its answer', async () => {
    const client = new AskgateClient({ url: templated.url as string, token: TOKEN });
    const to = String(++seq);
    let id = '';
    const asked = client.ask(
      { question: 'Ship the order?', answer_format: 'confirm', channel: 'whatsapp', recipient: `+${to}`, timeout: 120 },
      { onCreated: (record) => (id = record.id) },
    );
    const [question] = await sentTo(to, 1);
    await until(() => id !== '', 'the ask to be created');
    expect(
      await postWebhook(templated.url as string, statusUpdate(question?.id as string, to, 'failed', REENGAGEMENT)),
    ).toBe(200);
    const [, template] = await sentTo(to, 2);
    expect(template?.payload['type']).toBe('template');
    expect(JSON.stringify(template?.payload['template'])).toContain('Ship the order?');
    const http = api(templated.url as string, TOKEN);
    const record = (await http.get(`/api/interactions/${id}`)).json;
    expect(record['undeliverable']).toBeUndefined();
    expect(record['deliveries']).toEqual([
      { channel: 'whatsapp', recipient: `+${to}`, message_id: template?.id, status: 'sent' },
    ]);
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).json).toEqual({ status: 'answered' });
    expect((await asked).answer).toBe(true);
  });
});
