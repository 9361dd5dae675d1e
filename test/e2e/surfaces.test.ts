import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient, type AuditEvent, verifyChain } from 'askgate-sdk';
import { Keys } from '../../src/store/keys.js';
import { PERSON as ADA, blockActions, postInteraction } from '../fakes/slack-payloads.js';
import { FAKE_SLACK_TOKEN, startFakeSlack, type FakeSlack, type FakeSlackMessage } from '../fakes/slack-server.js';
import { FAKE_BOT_TOKEN, startFakeTelegram, type FakeMessage, type FakeTelegram } from '../fakes/telegram-server.js';
import { PERSON as TELEGRAM_PERSON, postUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { api } from '../helpers/http.js';
import { CLI, spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * Issue 14's done-when, surfaces part: `askgate serve` and `askgate worker` as separate processes on one real
 * redis-server, the real Slack and Telegram channels against the strict fakes. One confirm delivered to a Slack
 * channel and a Telegram chat, with approvers and a quorum of two yes votes: a non-approver's tap is refused (told
 * in that channel, recorded in the trail), one approver taps Yes on Slack and another on Telegram, and the question
 * is answered true; both messages show the count and then the outcome; the trail verifies, and an event edited by
 * hand in Redis is named by `askgate interactions audit ID --verify`.
 */

const TOKEN = 'surfaces-e2e-token-alice-0123456789abcdef';
const PREFIX = '{sf}:';
const SLACK_SECRET = 'slack-signing-secret-surfaces-e2e-01';
const TELEGRAM_SECRET = 'tg-webhook-secret_surfaces_e2e';
const SLACK_CHANNEL = 'C0SURFACES1';
const TELEGRAM_CHAT = '5151';
/** A second approver, on Telegram; Ada (the Slack fake's person) is the first. */
const BOB = { ...TELEGRAM_PERSON, id: 515151, first_name: 'Bob', username: 'bob' };
/** Someone in the Slack channel who is not an approver. */
const EVE = { ...ADA, id: 'UEVE0001', username: 'eve', name: 'eve' };

let redis: RedisServerHandle;
let raw: Redis;
let slack: FakeSlack;
let telegram: FakeTelegram;
let serve: GatewayProcess;
let worker: GatewayProcess;
let sdk: AskgateClient;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  raw = new Redis(redis.url);
  [slack, telegram] = await Promise.all([startFakeSlack(), startFakeTelegram()]);
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'] } }),
    INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com',
    SLACK_BOT_TOKEN: FAKE_SLACK_TOKEN,
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_URL: slack.apiUrl,
    TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
    TELEGRAM_API_ROOT: telegram.apiRoot,
  };
  [serve, worker] = await Promise.all([spawnGateway('serve', env), spawnGateway('worker', env)]);
  sdk = new AskgateClient({ url: serve.url as string, token: TOKEN });
}, 60_000);

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop()]);
  await Promise.all([slack?.close(), telegram?.close()]);
  await raw?.quit();
  await redis?.stop();
});

/** Waits (generously: a loaded two-core host) until `probe` gives a value. */
async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}\nserve:\n${serve.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ASKGATE_URL: serve.url as string, ASKGATE_TOKEN: TOKEN, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('one confirm on Slack and Telegram, approvers and a quorum of two (serve + worker on Redis)', () => {
  it('resolves true after a Yes on each surface, refuses a non-approver, shows the outcome, and the trail verifies', async () => {
    const asked = await sdk.create({
      question: 'Deploy 4.2 to production?',
      answer_format: 'confirm',
      timeout: 600,
      deliver: [
        { channel: 'slack', recipient: SLACK_CHANNEL },
        { channel: 'telegram', recipient: TELEGRAM_CHAT },
      ],
      approvers: [`slack:${ADA.id}`, `telegram:${BOB.id}`],
      quorum: { approve: 2 },
    });
    const id = asked.id;
    const onSlack: FakeSlackMessage = await until(() => slack.messagesIn(SLACK_CHANNEL)[0], 'the Slack message');
    const onTelegram: FakeMessage = await until(() => telegram.messagesIn(TELEGRAM_CHAT)[0], 'the Telegram message');

    // A non-approver's tap: refused, told to them alone in that channel, and the question stays pending.
    expect(
      (await postInteraction(serve.url as string, SLACK_SECRET, blockActions(onSlack, 'askgate_yes', { user: EVE })))
        .status,
    ).toBe(200);
    const refusal = await until(
      () => slack.callsTo('chat.postEphemeral').find((c) => c.args['user'] === EVE.id),
      'the refusal to the non-approver',
    );
    expect(refusal.args['channel']).toBe(SLACK_CHANNEL);
    expect(String(refusal.args['text'])).toContain('Only the approvers named for this question may answer it');
    expect((await sdk.get(id)).status).toBe('pending');

    // The first approver on Slack: a vote; both surfaces show the count, their buttons kept.
    expect(
      (await postInteraction(serve.url as string, SLACK_SECRET, blockActions(onSlack, 'askgate_yes'))).status,
    ).toBe(200);
    await until(() => onSlack.text.includes('🗳 1 of 2 approved'), 'the count on Slack');
    await until(() => onTelegram.text.includes('🗳 1 of 2 approved'), 'the count on Telegram');
    expect(onTelegram.reply_markup).not.toBeNull();
    expect((await sdk.get(id)).status).toBe('pending');

    // The second approver on Telegram: the quorum is reached, the question answered true.
    expect(await postUpdate(serve.url as string, TELEGRAM_SECRET, tapUpdate(onTelegram, { label: 'Yes' }, BOB))).toBe(
      200,
    );
    const record = await until(
      () => sdk.get(id).then((r) => (r.status === 'answered' ? r : null)),
      'the question answered',
    );
    expect(record.result).toMatchObject({ answer: true, answered_by: `telegram:${BOB.id}`, surface: 'telegram' });
    expect(record.votes?.map((v) => [v.by, v.answer, v.surface])).toEqual([
      [`slack:${ADA.id}`, true, 'slack'],
      [`telegram:${BOB.id}`, true, 'telegram'],
    ]);

    // Both messages show the outcome, their buttons gone.
    const outcome = `✅ Approved by @bob (telegram:${BOB.id}) on Telegram`;
    await until(() => onSlack.text.includes('Approved by'), 'the outcome on Slack');
    await until(() => onTelegram.text.includes('Approved by'), 'the outcome on Telegram');
    expect(onSlack.text).toContain(outcome);
    expect(onSlack.blocks.some((b) => b['type'] === 'actions')).toBe(false);
    expect(onTelegram.text).toContain(outcome);
    expect(onTelegram.reply_markup).toBeNull();

    // The trail: the refusal with the verified id, both votes, the answer; the hashes verify.
    const res = await api(serve.url as string, TOKEN).get(`/api/interactions/${id}/events`);
    expect(res.status).toBe(200);
    const items = res.json['items'] as AuditEvent[];
    const refused = items.find((e) => e.type === 'answer_refused');
    expect(refused).toMatchObject({ by: `slack:${EVE.id}`, surface: 'slack' });
    expect(items.filter((e) => e.type === 'vote').map((e) => e.by)).toEqual([`slack:${ADA.id}`, `telegram:${BOB.id}`]);
    expect(items.at(-1)).toMatchObject({ type: 'answered', by: `telegram:${BOB.id}` });
    expect(verifyChain(items)).toEqual({ ok: true, count: items.length });
    const verified = await cli(['interactions', 'audit', id, '--verify']);
    expect(verified.code).toBe(0);
    expect(verified.stderr).toContain(`verified: ${items.length} events`);

    // A hand edit in Redis after the trail was read: the refusal's time moved a minute. --verify names its seq.
    const key = new Keys(PREFIX).interaction(id);
    const stored = (await raw.get(key)) as string;
    const ms = Date.parse((refused as AuditEvent).at);
    const entry = `["answer_refused",${ms},`;
    expect(stored).toContain(entry);
    await raw.set(key, stored.replace(entry, `["answer_refused",${ms + 60_000},`), 'KEEPTTL');
    const tampered = await cli(['interactions', 'audit', id, '--verify']);
    expect(tampered.code).not.toBe(0);
    expect(tampered.stderr).toContain(`audit trail of ${id} fails verification at seq ${(refused as AuditEvent).seq}`);
  }, 120_000);
});
