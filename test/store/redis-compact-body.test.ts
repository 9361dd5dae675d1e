import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionEvent } from '../../src/core/types.js';
import { answerFacts } from '../../src/core/interaction-service.js';
import { decodeRecord, encodeRecord } from '../../src/store/record-codec.js';
import { Keys } from '../../src/store/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { AnswerFacts, Resolution } from '../../src/store/store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { answer, eventually, makeInteraction } from './fixtures.js';

/**
 * The record body's compact members (record-codec.ts): the deadline as `dd` (ms after `ca`) and a select's format
 * left to its choices. Records come back intact, in reads and events; the resolve script's answer check reads the
 * new members; a body that names a select's `f` and keeps its deadline whole (`da`) decodes and is checked the same.
 */

let server: RedisServerHandle;
let raw: Redis;
let store: RedisStore;
const prefix = `{b${randomBytes(6).toString('hex')}}:`;
const keys = new Keys(prefix);
const events: InteractionEvent[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url);
  store = await RedisStore.connect({ url: server.url, prefix, idleTtlSeconds: 60 });
  store.subscribe((e) => events.push(e));
  await store.eventsReady();
});
afterAll(async () => {
  await store?.close();
  await raw?.quit();
  await server?.stop();
});

const answered = (value: unknown): Resolution => ({
  status: 'answered',
  result: answer(value),
  resolvedAt: new Date().toISOString(),
});
const facts = (value: unknown): AnswerFacts => answerFacts(value) as AnswerFacts;
const bodyOf = (envelope: string) => JSON.parse(envelope.split('\n')[1] as string) as Record<string, unknown>;

describe('the compact record body', () => {
  it('stores a select without f and its deadline as dd, and reads it back intact (get and event)', async () => {
    const record = makeInteraction({ answer_format: 'select', choices: ['staging', 'canary', 'production'] });
    await store.create(record);
    const body = bodyOf((await raw.get(keys.interaction(record.id))) as string);
    expect(body['f']).toBeUndefined();
    expect(body['da']).toBeUndefined();
    expect(body['dd']).toBe(Date.parse(record.deadline_at) - Date.parse(record.created_at));
    const read = await store.get(record.id);
    expect(read).toMatchObject({
      answer_format: 'select',
      choices: ['staging', 'canary', 'production'],
      deadline_at: record.deadline_at,
      created_at: record.created_at,
    });
    await eventually(() => expect(events.some((e) => e.record.id === record.id)).toBe(true));
    const event = events.find((e) => e.record.id === record.id);
    expect(event?.record).toMatchObject({
      answer_format: 'select',
      choices: ['staging', 'canary', 'production'],
      deadline_at: record.deadline_at,
    });
    // The answer check reads the format from the choices and the deadline from ca + dd.
    expect((await store.claimAnswer(record.id, answered('nope'), facts('nope'))).kind).toBe('invalid');
    expect((await store.claimAnswer(record.id, answered('canary'), facts('canary'))).kind).toBe('resolved');
  });

  it('leaves a passed deadline in dd form to the full path, as before', async () => {
    const now = Date.now();
    const record = makeInteraction({
      answer_format: 'select',
      choices: ['a', 'b'],
      created_at: new Date(now - 60_000).toISOString(),
      deadline_at: new Date(now - 1_000).toISOString(),
    });
    await store.create(record);
    expect((await store.claimAnswer(record.id, answered('a'), facts('a'))).kind).toBe('unchecked');
  });

  it('keeps a deadline written in another spelling verbatim (da), and names every non-select format', () => {
    const record = makeInteraction({ answer_format: 'confirm', deadline_at: '2030-01-01T00:00:00+00:00' });
    const body = bodyOf(encodeRecord(record).envelope);
    expect(body['f']).toBe('confirm');
    expect(body['da']).toBe('2030-01-01T00:00:00+00:00');
    expect(body['dd']).toBeUndefined();
    expect(decodeRecord(record.id, encodeRecord(record).envelope, null)).toEqual(record);
  });

  it('decodes and checks a body that names its format and keeps its deadline whole (f and da)', async () => {
    const record = makeInteraction({ answer_format: 'select', choices: ['a', 'b'] });
    await store.create(record);
    const key = keys.interaction(record.id);
    const [status, body, ...rest] = ((await raw.get(key)) as string).split('\n');
    const b = JSON.parse(body as string) as Record<string, unknown>;
    const whole: Record<string, unknown> = {
      q: b['q'],
      f: 'select',
      ca: b['ca'],
      da: (b['ca'] as number) + (b['dd'] as number),
      ...b,
    };
    delete whole['dd'];
    await raw.set(key, [status, JSON.stringify(whole), ...rest].join('\n'), 'KEEPTTL');
    expect(await store.get(record.id)).toMatchObject({
      answer_format: 'select',
      choices: ['a', 'b'],
      deadline_at: record.deadline_at,
    });
    expect((await store.claimAnswer(record.id, answered('c'), facts('c'))).kind).toBe('invalid');
    expect((await store.claimAnswer(record.id, answered('b'), facts('b'))).kind).toBe('resolved');
  });
});
