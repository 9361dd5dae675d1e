import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionEvent } from '../../src/core/types.js';
import { answerFacts } from '../../src/core/interaction-service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { AnswerFacts, Resolution } from '../../src/store/store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { answer, eventually, makeInteraction, sleep } from './fixtures.js';

/** RedisStore.claimAnswer: the resolve script's answer check (ARGV[9], ARGV[10]) — claim or change nothing. */

let server: RedisServerHandle;
let store: RedisStore;
const events: InteractionEvent[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  store = await RedisStore.connect({
    url: server.url,
    prefix: `{c${randomBytes(6).toString('hex')}}:`,
    idleTtlSeconds: 60,
  });
  store.subscribe((e) => events.push(e));
  await store.eventsReady();
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
});

const answered = (value: unknown): Resolution => ({
  status: 'answered',
  result: answer(value),
  resolvedAt: new Date().toISOString(),
});
const facts = (value: unknown): AnswerFacts => answerFacts(value) as AnswerFacts;

describe('RedisStore.claimAnswer', () => {
  it('claims a fitting text, confirm and select answer exactly as resolve does', async () => {
    for (const [record, value] of [
      [makeInteraction({ answer_format: 'text' }), 'fine'],
      [makeInteraction({ answer_format: 'confirm' }), false],
      [makeInteraction({ answer_format: 'select', choices: ['a', 'b'] }), 'b'],
    ] as const) {
      await store.create(record);
      const outcome = await store.claimAnswer(record.id, answered(value), facts(value));
      expect(outcome.kind).toBe('resolved');
      expect((await store.get(record.id))?.result?.answer).toBe(value);
      expect((await store.claimAnswer(record.id, answered(value), facts(value))).kind).toBe('not_pending');
    }
  });

  it('changes nothing for an answer that does not fit (invalid), and publishes no event', async () => {
    const cases = [
      [makeInteraction({ answer_format: 'text' }), ''],
      [makeInteraction({ answer_format: 'text' }), 7],
      [makeInteraction({ answer_format: 'confirm' }), 'true'],
      [makeInteraction({ answer_format: 'select', choices: ['a', 'b'] }), 'c'],
      [makeInteraction({ answer_format: 'select', choices: ['a', 'b'] }), ['a']],
    ] as const;
    const ids = new Set<string>(cases.map(([record]) => record.id));
    const about = () => events.filter((e) => ids.has(e.record.id)).map((e) => `${e.type} ${e.record.id}`);
    for (const [record] of cases) await store.create(record);
    // The baseline is every created event seen, not a pause that a loaded host may outlast.
    await eventually(() => expect(about()).toHaveLength(cases.length));
    for (const [record, value] of cases) {
      const outcome = await store.claimAnswer(record.id, answered(value), facts(value));
      expect(outcome.kind).toBe('invalid');
      expect((await store.get(record.id))?.status).toBe('pending');
    }
    // Events reach a subscriber in publish order: once a record created after the claims is seen, any event a
    // claim published has been seen too.
    const sentinel = makeInteraction();
    await store.create(sentinel);
    await eventually(() => expect(events.some((e) => e.record.id === sentinel.id)).toBe(true));
    expect(about().every((line) => line.startsWith('interaction.created '))).toBe(true);
    expect(about()).toHaveLength(cases.length);
  });

  it('leaves forms, asks to the caller and passed deadlines to the full path (unchecked)', async () => {
    const past = new Date(Date.now() + 150).toISOString();
    const cases = [
      makeInteraction({ answer_format: 'form', schema: { type: 'object' } }),
      makeInteraction({ answer_format: 'text', to: 'caller' }),
      makeInteraction({ answer_format: 'text', deadline_at: past }),
    ];
    for (const record of cases) await store.create(record);
    await sleep(200);
    for (const record of cases) {
      const outcome = await store.claimAnswer(record.id, answered('x'), facts('x'));
      expect(outcome.kind).toBe('unchecked');
      expect((await store.get(record.id))?.status).toBe('pending');
    }
  });

  it('reports a missing record as not_found', async () => {
    expect((await store.claimAnswer('nope', answered('x'), facts('x'))).kind).toBe('not_found');
  });
});

describe('answerFacts', () => {
  it('says what the claim may check, and sends strings that are not well-formed to the full path', () => {
    expect(answerFacts(true)).toEqual({ boolean: true, text: false, choice: null });
    expect(answerFacts('ok')).toEqual({ boolean: false, text: true, choice: 'ok' });
    expect(answerFacts('')).toEqual({ boolean: false, text: false, choice: '' });
    expect(answerFacts('x'.repeat(16_385))?.text).toBe(false);
    expect(answerFacts('\ud800')).toBeNull();
  });
});
