import type { ServerResponse } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { postEvent } from '../fakes/slack-payloads.js';
import { BOT, startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';
import { ACCOUNT_SID, AUTH_TOKEN, postTwilio, startFakeTwilio, type FakeTwilio } from '../fakes/twilio-server.js';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph } from '../fakes/whatsapp-graph.js';
import {
  APP_SECRET,
  PHONE_NUMBER_ID,
  VERIFY_TOKEN,
  WABA_ID,
  postWebhook,
  textReply,
} from '../fakes/whatsapp-webhooks.js';
import { launchBrowser } from '../helpers/browser.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startVerifyingServer, until, webhookSecret } from './helpers.js';

/**
 * Conversations on Slack, WhatsApp, Twilio and the web chat (docs/parks.md, "Routes"), with `askgate serve` and `askgate worker`
 * as separate processes on one redis-server: a person's message that answers no question becomes a turn for the
 * channel's route; the route's target either answers at once or parks an ask under the turn's run id; once that
 * ask is answered, the run's late reply lands exactly once in the thread the message started (Slack `thread_ts`,
 * WhatsApp `context`, an SMS to the same number, the web chat's conversation).
 */

const TOKEN = 'conversations-token-0123456789abcdef';
const PREFIX = '{cv}:';
const SECRET = webhookSecret();
const SLACK_SECRET = 'slack-signing-secret-conversations-01';
const PUBLIC_BASE = 'https://askgate.example.com';
const SMS_FROM = '+15005550006';

let redis: RedisServerHandle;
let slack: FakeSlack;
let graph: FakeGraph;
let twilio: FakeTwilio;
let target: Target;
let serve: GatewayProcess;
let worker: GatewayProcess;

/** The routes' webhook target: answers `ping` at once; parks a confirm ask in the same conversation otherwise. */
interface Target {
  url: string;
  turns: Array<Record<string, unknown>>;
  /** The ask each parked turn made, by the text that started it. */
  parked: Map<string, string>;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const t: Omit<Target, 'url' | 'close'> = { turns: [], parked: new Map() };
  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (path: string, body: Record<string, unknown>, res: ServerResponse): Promise<void> => {
    if (path === '/turn') {
      t.turns.push(body);
      const turn = body['turn'] as { channel: string; text: string; thread: { recipient: string } };
      if (turn.text === 'ping') return send(res, 200, { text: 'pong' });
      const parked = await api(serve.url as string, TOKEN).post('/api/interactions', {
        question: `Run "${turn.text}"?`,
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        channel: turn.channel,
        recipient: turn.thread.recipient,
        run: { run_id: body['run_id'], resume: { webhook: `${server.url}/resume` }, state: { asked: turn.text } },
      });
      if (parked.status !== 201) return send(res, 500);
      t.parked.set(turn.text, parked.json['id'] as string);
      return send(res, 204);
    }
    const state = body['state'] as { asked: string };
    const answer = (body['ask_result'] as { answer: boolean }).answer;
    send(res, 200, { text: `${state.asked}: ${answer ? 'done' : 'skipped'}` });
  };
  const server = await startVerifyingServer(
    SECRET,
    ({ path, body }, res) => void handle(path, body, res).catch(() => send(res, 500)),
    () => undefined,
  );
  return Object.assign(t, server);
}

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  [slack, graph, twilio, target] = await Promise.all([
    startFakeSlack({ token: 'xoxb-0000-conversations-token' }),
    startFakeGraph(),
    startFakeTwilio(),
    startTarget(),
  ]);
  const webhook = { webhook: `${target.url}/turn` };
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'concierge', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    SLACK_BOT_TOKEN: 'xoxb-0000-conversations-token',
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
    TWILIO_FROM: SMS_FROM,
    TWILIO_API_URL: twilio.apiUrl,
    ASKGATE_ROUTES: JSON.stringify(
      ['slack', 'whatsapp', 'twilio', 'web'].map((channel) => ({
        channel,
        identity: 'concierge',
        target: webhook,
        reply: { template: 'bot: {{output.text}}' },
      })),
    ),
  };
  [serve, worker] = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env)]);
});

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([target?.close(), slack?.close(), graph?.close(), twilio?.close()]);
  await redis?.stop();
});

let seq = 0;
const answer = (id: string) => api(serve.url as string, TOKEN).post(`/api/interactions/${id}/answer`, { answer: true });
const turnOf = (text: string) =>
  target.turns.find((t) => (t['turn'] as { text: string }).text === text) as Record<string, unknown>;
/** Lets a duplicate reply (if the worker were to post one) arrive before the count is read. */
const settle = () => new Promise((r) => setTimeout(r, 600));

async function parkedAsk(text: string): Promise<string> {
  await until(() => target.parked.has(text), `the target to park "${text}"`);
  return target.parked.get(text) as string;
}

/** A person's top-level message in a Slack channel (or, with `threadTs`, inside a thread). */
async function slackSays(channel: string, text: string, threadTs?: string): Promise<string> {
  const ts = `${1_900_000_000 + ++seq}.000200`;
  const body = {
    team_id: BOT.team_id,
    api_app_id: 'AASKGATE',
    type: 'event_callback',
    event_id: `EvCONV${seq}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'message',
      channel,
      user: 'UADA0001',
      text,
      ts,
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      team: BOT.team_id,
      channel_type: 'channel',
      event_ts: ts,
    },
  };
  expect((await postEvent(serve.url as string, SLACK_SECRET, body)).status).toBe(200);
  return ts;
}

const slackRepliesIn = (channel: string, threadTs: string) =>
  slack
    .callsTo('chat.postMessage')
    .filter((c) => c.args['channel'] === channel && c.args['thread_ts'] === threadTs)
    .map((c) => c.args['text']);

describe('Slack conversations', () => {
  it('answers a message at once in the thread it starts', async () => {
    const channel = `C0CONV${++seq}`;
    const ts = await slackSays(channel, 'ping');
    await until(() => slackRepliesIn(channel, ts).length === 1, 'the immediate Slack reply');
    expect(slackRepliesIn(channel, ts)).toEqual(['bot: pong']);
    expect(turnOf('ping')['turn']).toMatchObject({
      channel: 'slack',
      thread: { recipient: channel, message_id: ts },
      reply_to: null,
      from: 'slack:UADA0001',
    });
  });

  it("posts a parked run's late reply once into the message's thread, and a message inside a thread answers there", async () => {
    const channel = `C0CONV${++seq}`;
    const root = await slackSays(channel, 'hello there');
    const ts = await slackSays(channel, 'deploy slack', root);
    const id = await parkedAsk('deploy slack');
    expect((await answer(id)).json).toEqual({ status: 'answered' });
    await until(() => slackRepliesIn(channel, root).includes('bot: deploy slack: done'), 'the late Slack reply');
    await settle();
    expect(slackRepliesIn(channel, root).filter((t) => t === 'bot: deploy slack: done')).toHaveLength(1);
    expect(turnOf('deploy slack')['turn']).toMatchObject({ thread: { message_id: ts, thread_id: root } });
  });
});

/** A person's WhatsApp text quoting nothing; returns its wamid. */
async function whatsappSays(from: string, text: string): Promise<string> {
  const body = textReply(from, text);
  const id = (
    (body['entry'] as Array<{ changes: Array<{ value: { messages: Array<{ id: string }> } }> }>)[0]?.changes[0]?.value
      .messages[0] as { id: string }
  ).id;
  expect(await postWebhook(serve.url as string, body)).toBe(200);
  return id;
}

const whatsappRepliesTo = (to: string, wamid: string) =>
  graph
    .sentTo(to)
    .filter((m) => (m.payload['context'] as { message_id?: string } | undefined)?.message_id === wamid)
    .map((m) => (m.payload['text'] as { body?: string } | undefined)?.body);

describe('WhatsApp conversations', () => {
  it("answers at once with context, and posts a parked run's late reply once quoting the message", async () => {
    const from = String(15_551_230_000 + ++seq);
    const pingId = await whatsappSays(from, 'ping');
    await until(() => whatsappRepliesTo(from, pingId).length === 1, 'the immediate WhatsApp reply');
    expect(whatsappRepliesTo(from, pingId)).toEqual(['bot: pong']);

    const other = String(15_551_230_000 + ++seq);
    const wamid = await whatsappSays(other, 'deploy whatsapp');
    const id = await parkedAsk('deploy whatsapp');
    expect((await answer(id)).json).toEqual({ status: 'answered' });
    await until(() => whatsappRepliesTo(other, wamid).includes('bot: deploy whatsapp: done'), 'the late reply');
    await settle();
    expect(whatsappRepliesTo(other, wamid)).toEqual(['bot: deploy whatsapp: done']);
    expect(turnOf('deploy whatsapp')['turn']).toMatchObject({
      channel: 'whatsapp',
      thread: { recipient: other, message_id: wamid },
      reply_to: null,
      from: `whatsapp:+${other}`,
    });
  });
});

let smsSeq = 0;
const sms = (from: string, body: string) =>
  postTwilio(serve.url as string, PUBLIC_BASE, '/channels/twilio/sms', {
    MessageSid: `SMconv${String(++smsSeq).padStart(28, '0')}`,
    AccountSid: ACCOUNT_SID,
    From: from,
    To: SMS_FROM,
    Body: body,
    NumMedia: '0',
  });

const smsTo = (to: string) => twilio.sentTo(to).map((m) => m.body);

describe('Twilio conversations', () => {
  it("answers at once by SMS to the same number, and texts a parked run's late reply once", async () => {
    const phone = `+1415777${String(++seq).padStart(4, '0')}`;
    const ping = await sms(phone, 'ping');
    expect(ping.status).toBe(200);
    // The turn's answer is sent by the worker, not in the TwiML of the webhook.
    expect(ping.body).not.toContain('There is no open question');
    await until(() => smsTo(phone).includes('bot: pong'), 'the immediate SMS reply');

    const other = `+1415777${String(++seq).padStart(4, '0')}`;
    expect((await sms(other, 'deploy sms')).status).toBe(200);
    const id = await parkedAsk('deploy sms');
    expect((await answer(id)).json).toEqual({ status: 'answered' });
    await until(() => smsTo(other).includes('bot: deploy sms: done'), 'the late SMS reply');
    await settle();
    expect(smsTo(other).filter((b) => b === 'bot: deploy sms: done')).toHaveLength(1);
    expect(turnOf('deploy sms')['turn']).toMatchObject({
      channel: 'twilio',
      thread: { recipient: other },
      reply_to: null,
      from: `twilio:${other}`,
    });
  });
});

/** A web chat link for `recipient`: the bearer token its page calls the chat API with. */
async function chatToken(recipient: string): Promise<string> {
  const link = await api(serve.url as string, TOKEN).post('/api/channels/web/links', { recipient });
  expect(link.status).toBe(201);
  return link.json['token'] as string;
}

async function chatCall(token: string, method: 'GET' | 'POST', body?: unknown) {
  const res = await fetch(`${serve.url as string}/chat/api/messages`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

type ChatLine = { id: string; from: string; text: string; reply_to: string | null };
const conversation = async (token: string) => (await chatCall(token, 'GET')).json['items'] as ChatLine[];

describe('web chat conversations', () => {
  it("keeps the person's message, answers it at once, and adds a parked run's late reply once", async () => {
    const token = await chatToken(`ada-${++seq}`);
    const ping = await chatCall(token, 'POST', { text: 'ping' });
    expect(ping.status).toBe(202);
    const pingId = ping.json['id'] as string;
    await until(async () => (await conversation(token)).some((m) => m.reply_to === pingId), 'the immediate reply');

    const sent = await chatCall(token, 'POST', { text: 'deploy web' });
    const messageId = sent.json['id'] as string;
    const id = await parkedAsk('deploy web');
    expect((await answer(id)).json).toEqual({ status: 'answered' });
    await until(
      async () => (await conversation(token)).some((m) => m.text === 'bot: deploy web: done'),
      'the late web chat reply',
    );
    await settle();
    expect((await conversation(token)).map(({ from, text, reply_to }) => ({ from, text, reply_to }))).toEqual([
      { from: 'person', text: 'ping', reply_to: null },
      { from: 'askgate', text: 'bot: pong', reply_to: pingId },
      { from: 'person', text: 'deploy web', reply_to: null },
      { from: 'askgate', text: 'bot: deploy web: done', reply_to: messageId },
    ]);
  });

  it('refuses an empty message naming the field, and keeps nothing', async () => {
    const token = await chatToken(`bob-${++seq}`);
    const refused = await chatCall(token, 'POST', { text: '' });
    expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_request', field: 'text' } });
    expect(await conversation(token)).toEqual([]);
  });
});

describe('the web chat page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('streams: the parked question appears without a reload, and the late reply appears once in the conversation', async () => {
    const token = await chatToken(`cleo-${++seq}`);
    const page = await browser.newPage();
    const reads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/chat/api/questions' && r.method() === 'GET') reads.push(r.url());
    });
    try {
      await page.goto(`${serve.url as string}/chat#token=${token}`);
      await page.locator('#live.up').waitFor();
      await page.locator('#message').fill('deploy chromium');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('li.chat-message.from-person', { hasText: 'deploy chromium' }).waitFor();
      const id = await parkedAsk('deploy chromium');
      const card = page.locator(`li.card[data-id="${id}"]`);
      await card.getByRole('button', { name: 'Yes' }).click();
      await card.locator('.chat-outcome').waitFor();
      const reply = page.locator('li.chat-message.from-askgate', { hasText: 'bot: deploy chromium: done' });
      await reply.waitFor();
      await settle();
      expect(await reply.count()).toBe(1);
      // Read once when the stream opened; everything after came over the stream, nothing was polled.
      expect(reads).toHaveLength(1);
    } finally {
      await page.close();
    }
  });
});

describe('a route on a channel that cannot converse', () => {
  it('stops the gateway at start, naming the route', async () => {
    const config = loadConfig({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: '{cv-refused}:',
      ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'concierge', scopes: ['write'] } }),
      DISCORD_BOT_TOKEN: 'discord-bot-token',
      DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
      DISCORD_APPLICATION_ID: '1100000000000000001',
      ASKGATE_ROUTES: JSON.stringify([
        { name: 'guild-desk', channel: 'discord', identity: 'concierge', target: { handler: 'desk' } },
      ]),
    });
    await expect(createGateway(config, { workers: false })).rejects.toThrow(
      /ASKGATE_ROUTES.*route 1 \("guild-desk"\): channel "discord" cannot hold a conversation/,
    );
  });
});
