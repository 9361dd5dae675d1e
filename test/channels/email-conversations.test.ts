import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postInbound, startFakeSmtp, type FakeSmtp } from '../fakes/smtp-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { inMs, startVerifyingServer, until, webhookSecret } from '../park/helpers.js';
import { FROM, INBOUND_SECRET, LINK_SECRET, PUBLIC_BASE } from './email-harness.js';
import { gmailReply, newMail } from './email-mails.js';

/**
 * Conversations by email (docs/parks.md, "Routes"): a mail that answers no question is a turn for the route naming
 * the email channel; the route's answer, at once or after the run parked on an email question, goes back by email
 * to the sender in the same thread (In-Reply-To their mail, References carried on, "Re:" their subject), once.
 */

const TOKEN = 'email-conversations-token-0123456789ab';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let smtp: FakeSmtp;
let gw: TestGateway;
let target: { url: string; parked: Map<string, string>; close(): Promise<void> };

async function startTarget(): Promise<typeof target> {
  const parked = new Map<string, string>();
  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (path: string, body: Record<string, unknown>, res: ServerResponse): Promise<void> => {
    if (path === '/turn') {
      const turn = body['turn'] as { channel: string; text: string; thread: { recipient: string } };
      if (turn.text === 'ping') return send(res, 200, { text: 'pong' });
      const ask = await api(gw.url, TOKEN).post('/api/interactions', {
        question: `Run "${turn.text}"?`,
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        channel: turn.channel,
        recipient: turn.thread.recipient,
        run: { run_id: body['run_id'], resume: { webhook: `${server.url}/resume` }, state: { asked: turn.text } },
      });
      if (ask.status !== 201) return send(res, 500);
      parked.set(turn.text, ask.json['id'] as string);
      return send(res, 204);
    }
    const state = body['state'] as { asked: string };
    send(res, 200, {
      text: `${state.asked}: ${(body['ask_result'] as { answer: boolean }).answer ? 'done' : 'skipped'}`,
    });
  };
  const server = await startVerifyingServer(
    SECRET,
    ({ path, body }, res) => void handle(path, body, res).catch(() => send(res, 500)),
    () => undefined,
  );
  return Object.assign({ parked }, server);
}

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  smtp = await startFakeSmtp();
  target = await startTarget();
  gw = await startTestGateway({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{em}:',
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'concierge', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    ASKGATE_RESUME_BACKOFF_MS: '100',
    INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    ASKGATE_LINK_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: FROM,
    EMAIL_INBOUND_SECRET: INBOUND_SECRET,
    ASKGATE_ROUTES: JSON.stringify([
      { channel: 'email', identity: 'concierge', target: { webhook: `${target.url}/turn` } },
    ]),
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([target?.close(), smtp?.close()]);
  await redis?.stop();
});

const settle = () => new Promise((r) => setTimeout(r, 600));

describe('email conversations', () => {
  it('answers a new mail at once, in its thread', async () => {
    const from = 'ada@example.com';
    const said = newMail({ from, subject: 'Hello', said: 'ping', messageId: '<ping.1@example.com>' });
    expect((await postInbound(gw.url, said, INBOUND_SECRET)).body).toMatchObject({ outcome: 'conversation' });
    await until(() => smtp.to(from).length === 1, 'the reply to the mail');
    const reply = smtp.to(from)[0];
    expect(reply).toMatchObject({ inReplyTo: '<ping.1@example.com>', subject: 'Re: Hello' });
    expect(reply?.text).toContain('pong');
  });

  it("sends a parked run's late reply once, by email, in the thread of the mail that started it", async () => {
    const from = 'grace@example.com';
    const start = newMail({ from, subject: 'Deploy', said: 'deploy v2', messageId: '<deploy.1@example.com>' });
    await postInbound(gw.url, start, INBOUND_SECRET);
    await until(() => target.parked.has('deploy v2'), 'the target to park');
    // The run's question went to the sender by email; they answer it by replying.
    await until(() => smtp.to(from).length === 1, 'the question mail');
    const question = smtp.to(from)[0];
    if (question === undefined) throw new Error('no question mail');
    expect(question.subject).toBe('Run "deploy v2"?');
    const reply = gmailReply({
      inReplyTo: question.messageId,
      from,
      subject: question.subject,
      said: 'yes',
      quoted: question.text,
    });
    expect((await postInbound(gw.url, reply, INBOUND_SECRET)).body).toMatchObject({ outcome: 'answered' });
    await until(() => smtp.to(from).some((m) => m.inReplyTo === '<deploy.1@example.com>'), 'the late reply');
    await settle();
    const late = smtp.to(from).filter((m) => m.inReplyTo === '<deploy.1@example.com>');
    expect(late).toHaveLength(1);
    expect(late[0]?.subject).toBe('Re: Deploy');
    expect(late[0]?.text).toContain('deploy v2: done');
    expect(late[0]?.parsed.references).toBe('<deploy.1@example.com>');
  });
});
