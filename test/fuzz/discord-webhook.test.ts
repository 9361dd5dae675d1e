import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { anyJson, call, expectWellRefused, fuzzParameters, fuzzTimeout, mutate, mutation } from './fuzz-helpers.js';

/**
 * Fuzzing Discord's interactions webhook with VALID Ed25519 signatures over random and mutated bodies, so every case
 * passes the signature check and reaches the parsing behind it. The test holds the application's key pair itself
 * (the gateway gets its public key as DISCORD_PUBLIC_KEY); the REST side is the strict fake. Never a 5xx, the gateway
 * alive after each case, a JSON 4xx that names its field, and no half-written record: a question a case touched
 * is either as it was or answered whole.
 */

const keys = generateKeyPairSync('ed25519');
const PUBLIC_KEY = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
const CHANNEL = '1300000000000000777';
let fake: FakeDiscord;
let redis: RedisServerHandle;
let gw: TestGateway;
const bases: unknown[] = [];
const questions: string[] = [];

beforeAll(async () => {
  [fake, redis] = await Promise.all([startFakeDiscord(), startRedisServer()]);
  gw = await startTestGateway({
    DISCORD_BOT_TOKEN: fake.botToken,
    DISCORD_PUBLIC_KEY: PUBLIC_KEY,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{fzd}:',
  });
  for (const ask of [
    { question: 'Ship?', answer_format: 'confirm' },
    { question: 'Pick', answer_format: 'select', choices: ['a', 'b', 'c'] },
    { question: 'Say', answer_format: 'text' },
  ]) {
    const res = await call(`${gw.url}/api/interactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, channel: 'discord', recipient: CHANNEL }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    questions.push((res.body as Record<string, string>)['id'] as string);
  }
  const deadline = Date.now() + 30_000;
  while (fake.messagesIn(CHANNEL).length < questions.length && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const person = { guild_id: '1300000000000000007', member: { user: { id: '1300000000000000042', username: 'ada' } } };
  const envelope = (n: number) => ({
    id: String(1_300_000_000_000_100_000n + BigInt(n)),
    application_id: fake.applicationId,
    token: `tok-${n}`,
    version: 1,
  });
  bases.push({ ...envelope(0), type: 1 });
  let n = 1;
  for (const m of fake.messagesIn(CHANNEL)) {
    const message = { id: m.id, channel_id: m.channelId, content: m.content, components: m.components };
    for (const row of m.components)
      for (const c of (row['components'] as Array<Record<string, unknown>> | undefined) ?? []) {
        const customId = c['custom_id'] as string;
        bases.push({
          ...envelope(n++),
          type: 3,
          channel_id: CHANNEL,
          message,
          data: { custom_id: customId, component_type: c['type'], ...(c['type'] === 3 ? { values: ['0'] } : {}) },
          ...person,
        });
        bases.push({
          ...envelope(n++),
          type: 5,
          channel_id: CHANNEL,
          message,
          data: {
            custom_id: customId,
            components: [{ type: 1, components: [{ type: 4, custom_id: 'answer', value: 'hi' }] }],
          },
          ...person,
        });
      }
  }
  expect(bases.length).toBeGreaterThan(3);
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([fake?.close(), redis?.stop()]);
});

/** Signs `body` with the application's key, as Discord does: hex Ed25519 over the timestamp then the body. */
function signed(body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'content-type': 'application/json',
    'x-signature-ed25519': sign(null, Buffer.from(timestamp + body), keys.privateKey).toString('hex'),
    'x-signature-timestamp': timestamp,
  };
}

const readRecord = async (id: string): Promise<Record<string, unknown>> =>
  (await call(`${gw.url}/api/interactions/${id}`, { headers: { authorization: `Bearer ${gw.token}` } })).body as Record<
    string,
    unknown
  >;

describe('the Discord interactions webhook with valid signatures over random bodies', () => {
  it(
    'never a 5xx; a question is either untouched or answered whole',
    async () => {
      const body = fc.oneof(
        anyJson.map((v) => JSON.stringify(v)),
        fc.string({ unit: 'binary' }),
        fc
          .tuple(fc.constantFrom(...bases), fc.array(mutation, { minLength: 1, maxLength: 3 }))
          .map(([b, m]) => JSON.stringify(mutate(b, m))),
      );
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(body, async (text) => {
          const before = await Promise.all(questions.map(readRecord));
          const res = await call(`${gw.url}/channels/discord/interactions`, {
            method: 'POST',
            headers: signed(text),
            body: text,
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (typeof res.body === 'object' && res.body !== null && 'error' in res.body)
            expectWellRefused(res.status, res.body, `discord ${text.slice(0, 300)}`);
          else expect(res.status, `discord ${text.slice(0, 300)} answered ${res.text.slice(0, 200)}`).toBeLessThan(500);
          const after = await Promise.all(questions.map(readRecord));
          after.forEach((record, i) => {
            if (JSON.stringify(record) === JSON.stringify(before[i])) return;
            expect(record['status'], `a changed question: ${JSON.stringify(record)}`).toBe('answered');
            expect(record['result'], 'an answered question without its result').toBeTruthy();
          });
          expect((await call(`${gw.url}/healthz`, {})).status).toBe(200);
        }),
        fuzzParameters('POST /channels/discord/interactions'),
      );
      // How deep the cases went, for the log: a 200 is an interaction askgate parsed and answered.
      const answered = (await Promise.all(questions.map(readRecord))).filter((r) => r['status'] === 'answered');
      console.log(
        `fuzz discord statuses: ${JSON.stringify(Object.fromEntries(statuses))}; questions answered: ` +
          `${answered.length}/${questions.length}`,
      );
    },
    fuzzTimeout(),
  );
});
