import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_BUDGETS } from '../../bench/redis-commands.js';
import { answerFacts } from '../../src/core/interaction-service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { AnswerFacts } from '../../src/store/store.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { answer, makeInteraction } from './fixtures.js';

/**
 * The Redis command budget of one answer (bench/README.md, "Redis commands"), counted exactly: Redis counts every
 * command a client sends and every command a Lua script runs (`INFO commandstats`), reset just before the claim.
 * Not timed, so not load-dependent: a change that adds a command to the answer's claim fails here.
 */

let server: RedisServerHandle;
let store: RedisStore;
let probe: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  store = await RedisStore.connect({
    url: server.url,
    prefix: `{b${randomBytes(6).toString('hex')}}:`,
    idleTtlSeconds: 60,
  });
  probe = new Redis(server.url);
});
afterAll(async () => {
  probe?.disconnect();
  await store?.close();
  await server?.stop();
});

/** Calls per command since the last reset, without the probe's own INFO and CONFIG. */
async function calls(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const line of (await probe.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m !== null && m[1] !== 'info' && !m[1]?.startsWith('config')) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

describe('Redis commands per answer', () => {
  it(`a claimed confirm answer costs one round trip and at most ${COMMAND_BUDGETS.answer} Redis commands`, async () => {
    const record = makeInteraction({ answer_format: 'confirm' });
    await store.create(record);
    await probe.config('RESETSTAT');
    const facts = answerFacts(true) as AnswerFacts;
    const outcome = await store.claimAnswer(
      record.id,
      { status: 'answered', result: answer(true), resolvedAt: new Date().toISOString() },
      facts,
    );
    expect(outcome.kind).toBe('resolved');
    const counted = await calls();
    const total = Object.values(counted).reduce((a, b) => a + b, 0);
    // One script call: the claim is a single round trip.
    console.log(JSON.stringify(counted));
    // One script call (EVALSHA, or EVAL where ioredis sends the body): the claim is a single round trip.
    expect((counted['evalsha'] ?? 0) + (counted['eval'] ?? 0), JSON.stringify(counted)).toBe(1);
    expect(total, JSON.stringify(counted)).toBeLessThanOrEqual(COMMAND_BUDGETS.answer);
  });
});
