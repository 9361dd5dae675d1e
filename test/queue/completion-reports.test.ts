import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import type { Identity } from '../../src/core/types.js';
import { COMPLETIONS_GROUP } from '../../src/runs/job-protocol.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The gateway's recording of completion reports (src/queue/completion-stream.ts): reports in the completions stream
 * (what the continuation doors write for a run reached over chat, test/sdk/continuation-doors.test.ts) are recorded
 * in the run; a report of any other version is refused unread; an entry whose reader died is taken over after the
 * lock time.
 */

const PREFIX = `{jp${Date.now()}}:`;
const STREAM = `${PREFIX}completions`;
let redis: RedisServerHandle;
let raw: Redis;
let gateway: Gateway;
const alice: Identity = { name: 'alice', scopes: new Set(['read', 'write', 'answer']), webhookSecret: null };

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { maxRetriesPerRequest: null });
  const config = loadConfig({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    LOG_LEVEL: 'silent',
    // A dead consumer's entries are reclaimed after this long (the reclaim test).
    ASKGATE_RESUME_LOCK_MS: '1000',
  });
  gateway = await createGateway(config, { workers: true });
});

afterAll(async () => {
  await gateway?.close();
  raw?.disconnect();
  await redis?.stop();
});

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const job = (v: number, resumeId: string, runId = `run-${resumeId}`) => ({
  v,
  resume_id: resumeId,
  run_id: runId,
  generation: 1,
  thread: null,
  type: 'run.resumed',
  identity: 'alice',
  kind: 'tool',
  state: null,
});

const status = (runId: string) => raw.hget(`${PREFIX}r:${runId}`, 's');

/** Parks a run on one confirm ask resumed by `handler`, and answers it: the run is ready. */
async function readyRun(runId: string, handler: string): Promise<void> {
  const record = await gateway.service.ask(
    {
      question: 'Ship it?',
      answer_format: 'confirm',
      mode: 'async',
      expiry_at: new Date(Date.now() + 3_600_000).toISOString(),
      run: { run_id: runId, resume: { handler } },
    },
    alice,
  );
  await gateway.service.offerAnswer({ interactionId: record.id, answer: true, surface: 'api', answeredBy: 'alice' });
}

describe('completion reports', () => {
  it('the gateway refuses a stream report of an unknown version (deleted, nothing recorded) and records the next', async () => {
    await readyRun('run-after-v3', 'v3');
    await raw.xadd(
      STREAM,
      '*',
      'r',
      JSON.stringify({ ...job(3, 'resume-x3', 'run-after-v3'), attempt: 1, output: null }),
    );
    expect(await status('run-after-v3')).toBe('ready');
    // The same report at v2, behind it: recorded. Entries are read in order, so the v3 one was read first.
    await raw.xadd(
      STREAM,
      '*',
      'r',
      JSON.stringify({ ...job(2, 'resume-x3', 'run-after-v3'), attempt: 1, output: null }),
    );
    await until(async () => (await status('run-after-v3')) === 'resumed', 'the v2 report to be recorded');
    await until(async () => (await raw.xlen(STREAM)) === 0, 'both entries to be deleted');
  });

  it('an entry read by a consumer that died unacknowledged is taken over and recorded after the lock time', async () => {
    await readyRun('run-orphan', 'orphan');
    // A consumer that reads the report and dies: the entry is pending on it, never acknowledged.
    const dead = new Redis(redis.url);
    try {
      await dead.xgroup('CREATE', STREAM, COMPLETIONS_GROUP, '0', 'MKSTREAM').catch(() => undefined);
      // Park the live consumers' reads out of the way: the dead one must be the reader. Add and read in one MULTI.
      const [, read] = (await dead
        .multi()
        .xadd(STREAM, '*', 'r', JSON.stringify({ ...job(2, 'resume-orphan', 'run-orphan'), attempt: 1, output: null }))
        .xreadgroup('GROUP', COMPLETIONS_GROUP, 'dead-consumer', 'COUNT', 10, 'STREAMS', STREAM, '>')
        .exec()) as [[null, string], [null, Array<[string, Array<[string, string[]]>]> | null]];
      expect(read[1]?.[0]?.[1].length).toBe(1);
    } finally {
      dead.disconnect();
    }
    expect(await status('run-orphan')).toBe('ready');
    await until(async () => (await status('run-orphan')) === 'resumed', 'the orphaned report to be reclaimed');
    await until(async () => (await raw.xlen(STREAM)) === 0, 'the reclaimed entry to be deleted');
  });
});
