import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { blockedAddressReason, literalWebhookRefusal } from '../../src/core/network-address.js';
import { OutboundRefusedError, pinnedPost, type Resolver } from '../../src/runs/outbound.js';
import { postWebhook, WebhookDeliveryError } from '../../src/runs/webhook.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startReceiver, until, webhookSecret, type Receiver } from './helpers.js';

/**
 * The outbound pin, WITHOUT ASKGATE_WEBHOOK_ALLOW_PRIVATE (the rest of the suite sets it, as its receivers listen on
 * 127.0.0.1): a literal loopback, private, link-local or metadata address in a resume webhook or a route target is
 * refused when it is named; a host name that resolves to one is refused where the send connects, and the refusal
 * is a failed attempt of the run.
 */

describe('which addresses a webhook may reach', () => {
  const refused = [
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1', // CGNAT
    '100.100.100.200', // a cloud's metadata service, inside CGNAT
    '169.254.169.254', // the metadata service
    '169.254.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254', // the IPv6 metadata service
    '::ffff:127.0.0.1', // IPv4-mapped
    '::ffff:7f00:1',
    '::ffff:8.8.8.8', // any IPv4-mapped address: a public target has no reason to be written so
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '2002:a00:1::', // 6to4 of 10.0.0.1
  ];
  for (const address of refused) it(`refuses ${address}`, () => expect(blockedAddressReason(address)).not.toBeNull());

  for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', 'example.com'])
    it(`lets ${address} through`, () => expect(blockedAddressReason(address)).toBeNull());

  it('reads a URL host as WHATWG URL does: decimal and hex spellings of 127.0.0.1 are refused', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:7f00:1]:80/'])
      expect(literalWebhookRefusal(url), url).toMatch(/no webhook may reach/);
    expect(literalWebhookRefusal('https://hooks.example.com/resume')).toBeNull();
  });
});

describe('the send: checked on the address it connects to', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // A name the test's resolver maps, so no hosts file or DNS server is needed.
  const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  const post = (url: string, allowPrivate: boolean, resolve?: Resolver) =>
    pinnedPost(
      url,
      { 'content-type': 'application/json' },
      '{}',
      resolve ? { allowPrivate, resolve } : { allowPrivate },
      5000,
    );

  it('refuses a literal loopback address before connecting', async () => {
    const before = hits;
    await expect(post(`http://127.0.0.1:${port}/`, false)).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(post(`http://[::1]:${port}/`, false)).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(post('http://169.254.169.254/latest/meta-data/', false)).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(hits).toBe(before);
  });

  it('refuses a host name whose answer is loopback, and the same name reaches the server when allowed', async () => {
    const before = hits;
    await expect(post(`http://hook.test:${port}/`, false, toLoopback)).rejects.toThrow(/resolves to 127\.0\.0\.1/);
    expect(hits).toBe(before);
    // The same resolver with the pin lifted connects to what it answered: the answer checked is the one connected.
    await expect(post(`http://hook.test:${port}/`, true, toLoopback)).resolves.toMatchObject({ status: 200 });
    expect(hits).toBe(before + 1);
  });

  it('refuses an answer that mixes a public address with a private one', async () => {
    const mixed: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expect(post(`http://hook.test:${port}/`, false, mixed)).rejects.toThrow(/resolves to 127\.0\.0\.1/);
  });

  it('asks the resolver on every send, so a changed (rebound) answer is checked again', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    await expect(post(`http://rebind.test:${port}/`, false, rebinding)).rejects.toThrow(/127\.0\.0\.1/);
    await expect(post(`http://rebind.test:${port}/`, false, rebinding)).rejects.toThrow(/10\.0\.0\.1/);
    expect(calls).toBe(2);
  });

  it("words a failed send (which the worker logs) with the URL's origin only, never its path or query", async () => {
    const secretUrl = (origin: string) => `${origin}/hooks/path-key-7f3a?key=query-key-9c1e`;
    const send = (origin: string, allowPrivate: boolean) =>
      postWebhook(secretUrl(origin), 'whsec_c2VjcmV0', 'msg_1', '{}', { allowPrivate }).then(
        () => null,
        (error: unknown) => error,
      );
    // Refused by the pin, and unreachable (nothing listens on port 9).
    const errors = [await send('http://169.254.169.254', false), await send('http://127.0.0.1:9', true)];
    for (const error of errors) {
      expect(error).toBeInstanceOf(WebhookDeliveryError);
      const message = (error as WebhookDeliveryError).message;
      expect(message).toMatch(/^webhook to http:\/\/(169\.254\.169\.254|127\.0\.0\.1:9) (refused|unreachable)/);
      expect(message).not.toMatch(/path-key|query-key|whsec/);
    }
  });

  it('refuses a name from the hosts file that is loopback (localhost)', async () => {
    await expect(post(`http://localhost:${port}/`, false)).rejects.toBeInstanceOf(OutboundRefusedError);
  });
});

describe('a gateway without ASKGATE_WEBHOOK_ALLOW_PRIVATE', () => {
  const TOKEN = 'outbound-pin-token-0123456789abcdef';
  const SECRET = webhookSecret();
  let redis: RedisServerHandle;
  let gw: TestGateway;
  let receiver: Receiver;

  beforeAll(async () => {
    redis = await startRedisServer();
    receiver = await startReceiver(SECRET);
    gw = await startTestGateway({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: '{pin}:',
      ASKGATE_TOKENS: JSON.stringify({
        [TOKEN]: { identity: 'pinned', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
      }),
      ASKGATE_RESUME_BACKOFF_MS: '100',
      ASKGATE_WEBHOOK_ALLOW_PRIVATE: '',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
    await redis?.stop();
  });

  const park = (runId: string, webhook: string) =>
    api(gw.url, TOKEN).post('/api/interactions', {
      question: 'Approve?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: inMs(120_000),
      run: { run_id: runId, resume: { webhook } },
    });

  it('refuses a literal private address in run.resume.webhook with a 400 naming the field, storing nothing', async () => {
    const port = new URL(receiver.url).port;
    const urls = [
      `http://127.0.0.1:${port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${port}/hook`,
      'http://10.1.2.3/hook',
      'http://2130706433/hook',
    ];
    for (const [i, url] of urls.entries()) {
      const res = await park(`run-literal-${i}`, url);
      expect(res.status, url).toBe(400);
      expect(res.json['field']).toBe('run.resume.webhook');
      expect(res.json['message']).toMatch(/no webhook may reach/);
      expect((await api(gw.url, TOKEN).get(`/api/runs/run-literal-${i}`)).status).toBe(404);
    }
    const pending = await api(gw.url, TOKEN).get('/api/interactions?status=pending');
    expect(pending.json['items']).toEqual([]);
  });

  it('refuses at send time a host name that resolves to loopback, recording failed attempts and never resuming', async () => {
    const port = new URL(receiver.url).port;
    const res = await park('run-localhost', `http://localhost:${port}/hook`);
    expect(res.status).toBe(201);
    const id = res.json['id'] as string;
    expect((await api(gw.url, TOKEN).post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    const run = async () => (await api(gw.url, TOKEN).get('/api/runs/run-localhost')).json;
    // Each refused send is an attempt, retried with backoff like any failed delivery.
    await until(async () => ((await run())['resume_attempts'] as number) >= 2, 'two refused attempts');
    const view = await run();
    expect(view['status']).toBe('parked');
    expect(view['completed_at']).toBeNull();
    expect(receiver.deliveries).toEqual([]);
  });

  it('shows each refused attempt in GET /api/runs/{id}: the address and why, never the URL, signature or body', async () => {
    const port = new URL(receiver.url).port;
    const res = await park('run-shown', `http://localhost:${port}/hook?key=query-secret-123`);
    expect(res.status).toBe(201);
    const id = res.json['id'] as string;
    expect((await api(gw.url, TOKEN).post(`/api/interactions/${id}/answer`, { answer: true })).status).toBe(200);
    const run = async () => (await api(gw.url, TOKEN).get('/api/runs/run-shown')).json;
    await until(
      async () => ((await run())['resume_attempt_outcomes'] as unknown[]).length >= 2,
      'two refused attempts shown',
    );
    const view = await run();
    const outcomes = view['resume_attempt_outcomes'] as Array<Record<string, unknown>>;
    for (const o of outcomes) {
      expect(Object.keys(o).sort()).toEqual(['at', 'outcome', 'reason']);
      expect(o['outcome']).toBe('refused');
      // localhost resolves to 127.0.0.1 or ::1, both loopback.
      expect(o['reason']).toMatch(/^localhost resolves to address (127\.0\.0\.1|::1), which is loopback$/);
      expect(Number.isNaN(Date.parse(o['at'] as string))).toBe(false);
    }
    // Oldest first, and never more than the attempts counted.
    const times = outcomes.map((o) => Date.parse(o['at'] as string));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(outcomes.length).toBeLessThanOrEqual(view['resume_attempts'] as number);
    const shown = JSON.stringify(outcomes);
    for (const secret of ['query-secret-123', SECRET, 'v1,', 'run.resumed', TOKEN]) expect(shown).not.toContain(secret);
  });
});

describe('route targets', () => {
  const tokens = JSON.stringify({
    't-0123456789abcdef': { identity: 'desk', scopes: ['read', 'write'], webhook_secret: webhookSecret() },
  });
  const routes = (webhook: string) => JSON.stringify([{ channel: 'telegram', identity: 'desk', target: { webhook } }]);
  const env = (webhook: string, allow: string) => ({
    ASKGATE_TOKENS: tokens,
    REDIS_URL: 'redis://127.0.0.1:6379',
    ASKGATE_ROUTES: routes(webhook),
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: allow,
  });

  it('refuses a literal private address in a route target, naming target.webhook', () => {
    for (const url of ['http://10.0.0.5/turn', 'http://169.254.169.254/', 'http://[fd00::1]/turn']) {
      expect(() => loadConfig(env(url, ''))).toThrow(ConfigError);
      expect(() => loadConfig(env(url, ''))).toThrow(/ASKGATE_ROUTES: route 1: "target\.webhook" names/);
    }
    expect(loadConfig(env('https://agent.example/turn', '')).routes).toHaveLength(1);
    expect(loadConfig(env('http://10.0.0.5/turn', '1')).routes).toHaveLength(1);
  });

  it('reads ASKGATE_WEBHOOK_ALLOW_PRIVATE as a switch and refuses anything else by name', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ ASKGATE_WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(() => loadConfig({ ASKGATE_WEBHOOK_ALLOW_PRIVATE: 'sometimes' })).toThrow(/ASKGATE_WEBHOOK_ALLOW_PRIVATE/);
  });
});
