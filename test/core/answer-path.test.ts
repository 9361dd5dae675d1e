import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AskgateError } from '../../src/core/errors.js';
import type { AnswerOffer } from '../../src/core/interaction-service.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The one answer path on Redis, counted in store calls (the store itself is real; the spies only count): the way an
 * offer takes is chosen before the first round trip, and a record the caller holds is not read again.
 */
let redis: RedisServerHandle;
let gw: TestGateway;

beforeAll(async () => {
  redis = await startRedisServer();
  gw = await startTestGateway({ REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{path${Date.now()}}:` });
});
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

const calls = () => {
  const store = gw.gateway.store;
  return {
    get: vi.spyOn(store, 'get'),
    claim: vi.spyOn(store, 'claimAnswer' as never) as unknown as ReturnType<typeof vi.fn>,
    resolve: vi.spyOn(store, 'resolve'),
  };
};

async function ask(body: Record<string, unknown>): Promise<string> {
  const created = await api(gw.url, gw.token).post('/api/interactions', { timeout: 60, ...body });
  expect(created.status).toBe(201);
  return created.json['id'] as string;
}

const offer = (interactionId: string, answer: unknown, extra: Partial<AnswerOffer> = {}): AnswerOffer => ({
  interactionId,
  answer,
  surface: 'inbox',
  answeredBy: 'tester',
  ...extra,
});

async function refusalOf(p: Promise<unknown>): Promise<AskgateError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AskgateError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

describe('the answer path', () => {
  beforeEach(() => {
    vi.restoreAllMocks();
  });

  it('answers a text question by id in one claim, with no read', async () => {
    const id = await ask({ question: 'Name?', answer_format: 'text' });
    const c = calls();
    expect(await gw.gateway.service.offerAnswer(offer(id, 'Ada'))).toBe('answered');
    expect([c.claim.mock.calls.length, c.get.mock.calls.length, c.resolve.mock.calls.length]).toEqual([1, 0, 0]);
  });

  it('sends an answer no fast format could take straight to read → check → claim, never to the one-step claim', async () => {
    const id = await ask({
      question: 'Address?',
      answer_format: 'form',
      schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    const c = calls();
    expect(await gw.gateway.service.offerAnswer(offer(id, { city: 'Oslo' }))).toBe('answered');
    expect([c.claim.mock.calls.length, c.get.mock.calls.length, c.resolve.mock.calls.length]).toEqual([0, 1, 1]);
  });

  it('checks and claims a record the caller holds without reading it again', async () => {
    const id = await ask({ question: 'Ok?', answer_format: 'confirm' });
    const record = await gw.gateway.store.get(id);
    const c = calls();
    expect(await gw.gateway.service.offerAnswer(offer(id, true, { record: record ?? undefined }))).toBe('answered');
    expect([c.claim.mock.calls.length, c.get.mock.calls.length, c.resolve.mock.calls.length]).toEqual([0, 0, 1]);
    // A stale held record still loses to the winner: the claim, not the copy, decides.
    expect(await gw.gateway.service.offerAnswer(offer(id, false, { record: record ?? undefined }))).toBe(
      'already_answered',
    );
    expect((await gw.gateway.service.get(id)).result?.answer).toBe(true);
  });

  it('refuses a misfit answer the claim turned down with the format check, as field and reason, and changes nothing', async () => {
    const id = await ask({ question: 'Pick', answer_format: 'select', choices: ['red', 'blue'] });
    const err = await refusalOf(gw.gateway.service.offerAnswer(offer(id, 'green')));
    expect(err.refusal).toEqual({ code: 'invalid_answer', field: 'answer', reason: 'must be one of "red", "blue"' });
    expect(err.message).toBe('answer does not match schema at answer: must be one of "red", "blue"');
    expect((await gw.gateway.service.get(id)).status).toBe('pending');
  });

  it('takes a long astral text the claim counted in UTF-16 units, through the full check', async () => {
    const id = await ask({ question: 'Emoji?', answer_format: 'text' });
    const long = '😀'.repeat(10_000); // 10,000 characters, 20,000 UTF-16 units
    const c = calls();
    expect(await gw.gateway.service.offerAnswer(offer(id, long))).toBe('answered');
    expect([c.claim.mock.calls.length, c.get.mock.calls.length, c.resolve.mock.calls.length]).toEqual([1, 0, 1]);
  });

  it('tells an answer to a cancelled question that it is gone, from the claim alone', async () => {
    const id = await ask({ question: 'Gone?', answer_format: 'confirm' });
    expect((await api(gw.url, gw.token).delete(`/api/interactions/${id}`)).status).toBe(200);
    const c = calls();
    const err = await refusalOf(gw.gateway.service.offerAnswer(offer(id, true)));
    expect([err.code, err.extra['status']]).toEqual(['gone', 'cancelled']);
    expect([c.claim.mock.calls.length, c.get.mock.calls.length]).toEqual([1, 0]);
  });
});
