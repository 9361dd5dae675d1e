import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient, type AuditEvent, verifyChain } from 'askgate-sdk';
import { Keys } from '../../src/store/keys.js';
import { api } from '../helpers/http.js';
import { CLI, spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The audit trail end to end: `askgate serve` as its own process on a real redis-server, the door
 * `GET /api/interactions/{id}/events`, the SDK's `events()`, and `askgate interactions audit ID [--json] [--verify]`
 * as a real process — including a stored event edited by hand in Redis, which `--verify` must name.
 */

const TOKEN = 'audit-cli-token-alice-0123456789abcdef';
const PREFIX = '{au}:';
let redis: RedisServerHandle;
let raw: Redis;
let serve: GatewayProcess;
let sdk: AskgateClient;

beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  raw = new Redis(redis.url);
  serve = await spawnGateway('serve', {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'] } }),
  });
  sdk = new AskgateClient({ url: serve.url as string, token: TOKEN });
});

afterAll(async () => {
  await serve?.stop();
  await raw?.quit();
  await redis?.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: readonly string[]): Promise<Run> {
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

/** Rewrites the stored record of `id` in Redis, keeping its expiry: the hand edit verification must catch. */
async function editStored(id: string, from: string, to: string): Promise<void> {
  const key = new Keys(PREFIX).interaction(id);
  const stored = (await raw.get(key)) as string;
  expect(stored).toContain(from);
  await raw.set(key, stored.replace(from, to), 'KEEPTTL');
}

async function answeredAsk(question: string): Promise<string> {
  const record = await sdk.create({ question, answer_format: 'confirm', timeout: 600 });
  expect(await sdk.answer(record.id, true)).toBe('answered');
  return record.id;
}

describe('the audit trail over HTTP, the SDK and the CLI', () => {
  it('serves the trail oldest first with read scope, 404 for an unknown question, 401 without a token', async () => {
    const id = await answeredAsk('Deploy v2?');
    const res = await api(serve.url as string, TOKEN).get(`/api/interactions/${id}/events`);
    expect(res.status).toBe(200);
    const items = res.json['items'] as AuditEvent[];
    expect(items.map((e) => [e.seq, e.type, e.by])).toEqual([
      [1, 'created', 'alice'],
      [2, 'answered', 'alice'],
    ]);
    expect(items[1]).toMatchObject({ surface: 'api', detail: { answer: true } });
    expect(verifyChain(items)).toEqual({ ok: true, count: 2 });
    expect(await sdk.events(id)).toEqual(items);
    expect((await api(serve.url as string, TOKEN).get('/api/interactions/int_nope/events')).status).toBe(404);
    expect((await api(serve.url as string, 'not-a-token').get(`/api/interactions/${id}/events`)).status).toBe(401);
  });

  it('prints the trail as a table or JSON, and --verify passes an untouched chain', async () => {
    const id = await answeredAsk('Rotate the keys?');
    const shown = await cli(['interactions', 'audit', id]);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SEQ\s+AT\s+TYPE\s+SURFACE\s+BY\s+HASH\s+DETAIL$/);
    expect(lines[1]).toMatch(/^1\s+\S+\s+created\s+alice\s+[0-9a-f]{12}\s+\{"question":"Rotate the keys\?"/);
    expect(lines[2]).toMatch(/^2\s+\S+\s+answered\s+api\s+alice\s+[0-9a-f]{12}\s+\{"answer":true\}$/);
    const json = await cli(['interactions', 'audit', id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ items: await sdk.events(id) });
    const verified = await cli(['interactions', 'audit', id, '--verify']);
    expect(verified.code).toBe(0);
    expect(verified.stderr).toContain('verified: 2 events');
  });

  it('--verify exits non-zero naming the first edited event: a stored event, a derived one, the question', async () => {
    // A stored entry: the cancel's own event, its time changed by hand after the trail was read (and sealed).
    const cancelled = await sdk.create({ question: 'Drop the table?', answer_format: 'confirm', timeout: 600 });
    await sdk.cancel(cancelled.id);
    const [, event] = await sdk.events(cancelled.id);
    expect(event?.type).toBe('cancelled');
    const ms = String(Date.parse(event?.at as string));
    await editStored(cancelled.id, `["cancelled",${ms}]`, `["cancelled",${Number(ms) + 60_000}]`);
    const stored = await cli(['interactions', 'audit', cancelled.id, '--verify']);
    expect(stored.code).toBe(1);
    expect(stored.stderr).toContain(`audit trail of ${cancelled.id} fails verification at seq 2`);

    // The answered event is derived from the stored result: who answered, changed by hand.
    const answered = await answeredAsk('Ship on Friday?');
    await sdk.events(answered);
    await editStored(answered, '"answered_by":"alice"', '"answered_by":"mallory"');
    const who = await cli(['interactions', 'audit', answered, '--verify']);
    expect(who.code).toBe(1);
    expect(who.stderr).toContain('fails verification at seq 2');

    // The created event is derived from the question itself.
    await editStored(answered, '"q":"Ship on Friday?"', '"q":"Ship on Monday?"');
    const question = await cli(['interactions', 'audit', answered, '--verify']);
    expect(question.code).toBe(1);
    expect(question.stderr).toContain('fails verification at seq 1');
  });
});
