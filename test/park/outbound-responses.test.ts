import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startVerifyingServer, until, webhookSecret } from './helpers.js';

/**
 * What askgate does with a webhook target's answer (docs/doors.md, resume_attempt_outcomes; docs/reliability.md):
 * "Redirects are not followed: a 3xx is a failed delivery, so a public host cannot bounce the signed POST to a
 * private one" — the attempt is `http_error` with the 3xx status, retried, and the Location is never visited; and
 * "The response body read back is capped at 1 MiB" — a route target answering 1.5 MiB of text has exactly its first
 * 1 MiB posted into the web chat conversation. Black box: the gateway's doors, a Redis, and the targets.
 */

const TOKEN = 'outbound-responses-token-0123456789';
const SECRET = webhookSecret();
const MIB = 1024 * 1024;
const RECIPIENT = 'outbound-reader';

let redis: RedisServerHandle;
let target: { url: string; close(): Promise<void> };
let gw: TestGateway;
/** Requests that reached the redirect's Location (must stay 0). */
let landed = 0;

beforeAll(async () => {
  redis = await startRedisServer();
  target = await startVerifyingServer(
    SECRET,
    ({ path }, res) => {
      if (path.startsWith('/redirect/')) {
        const status = Number(path.split('/')[2]);
        res.writeHead(status, { location: '/landing' }).end();
        return;
      }
      if (path === '/landing') {
        landed++;
        res.writeHead(200).end();
        return;
      }
      // A route turn: 1.5 MiB of plain text, the reply (path "" maps the whole output).
      res.writeHead(200, { 'content-type': 'text/plain' }).end('a'.repeat(MIB + MIB / 2));
    },
    () => undefined,
  );
  gw = await startTestGateway({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: `{outbound-${process.pid}}:`,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'outbound', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ASKGATE_ROUTES: JSON.stringify([
      {
        channel: 'web',
        chat: RECIPIENT,
        identity: 'outbound',
        target: { webhook: `${target.url}/turn` },
        reply: { path: '' },
      },
    ]),
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await target?.close();
  await redis?.stop();
});

const http = () => api(gw.url, TOKEN);

describe('a resume webhook answered with a redirect', () => {
  for (const status of [302, 307]) {
    it(`${status}: each attempt is http_error ${status}, retried, and the Location is never visited`, async () => {
      const runId = `run-redirect-${status}`;
      const asked = await http().post('/api/interactions', {
        question: 'Approve?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(120_000),
        run: { run_id: runId, resume: { webhook: `${target.url}/redirect/${status}` } },
      });
      expect(asked.status, JSON.stringify(asked.json)).toBe(201);
      expect((await http().post(`/api/interactions/${asked.json['id']}/answer`, { answer: true })).status).toBe(200);
      const run = async () => (await http().get(`/api/runs/${runId}`)).json;
      await until(async () => ((await run())['resume_attempt_outcomes'] as unknown[]).length >= 2, 'two attempts');
      const view = await run();
      const outcomes = (view['resume_attempt_outcomes'] as Array<Record<string, unknown>>).map(
        ({ at: _at, ...o }) => o,
      );
      expect(outcomes.slice(0, 2)).toEqual([
        { outcome: 'http_error', status },
        { outcome: 'http_error', status },
      ]);
      expect(view['status']).toBe('parked');
      expect(landed).toBe(0);
    });
  }
});

describe('a route target answering more than 1 MiB', () => {
  it('has its first 1 MiB, and no more, posted into the web chat conversation', async () => {
    const link = await http().post('/api/channels/web/links', { recipient: RECIPIENT });
    expect(link.status).toBe(201);
    const chat = api(gw.url, link.json['token'] as string);
    expect((await chat.post('/chat/api/messages', { text: 'tell me everything' })).status).toBeLessThan(300);
    let reply: { from: string; text: string } | undefined;
    await until(async () => {
      const items = (await chat.get('/chat/api/messages')).json['items'] as Array<{ from: string; text: string }>;
      reply = items.find((m) => m.from === 'askgate');
      return reply !== undefined;
    }, 'the route reply');
    expect(reply?.text.length).toBe(MIB);
    expect(reply?.text).toBe('a'.repeat(MIB));
  });
});
