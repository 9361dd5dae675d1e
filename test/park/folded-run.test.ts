import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../src/core/types.js';
import type { Gateway } from '../../src/gateway.js';
import type { HandlerJob } from '../../src/runs/job-protocol.js';
import { resumeJobId } from '../../src/runs/job-bus.js';
import type { RedisRunStore } from '../../src/store/redis/run-store.js';
import { parkOnOneAsk, until, useParkWorld } from './helpers.js';

/**
 * Folded parks (src/store/redis/scripts/includes/foldedBucketKey.lua): a run parked on one ask with no hash of its own yet keeps
 * no `r:<run_id>` key — one field of a bucketed `rf:` hash — until the step that needs the hash (the answer's claim,
 * a kill, a bound thread) writes it exactly as park-run would have. Everything a parked run promises still holds.
 */

const PREFIX = '{fr}:';
const TOKEN = 'folded-run-token-0123456789abcdef';
const IDENTITY = 'deploy-agent';
const RETENTION_MINUTES = 120;

let raw: Redis;
let gateway: Gateway;
let identity: Identity;
let runs: RedisRunStore;

useParkWorld({ prefix: PREFIX, token: TOKEN, identity: IDENTITY, retentionMinutes: RETENTION_MINUTES }, (world) => {
  ({ raw, gateway, identity, runs } = world);
});

const runKey = (runId: string) => `${PREFIX}r:${runId}`;

const park = (runId: string, run: Record<string, unknown> = { resume: { handler: 'deploy' } }) =>
  parkOnOneAsk(gateway, identity, runId, run);

const answer = (id: string, value = true) =>
  gateway.service.offerAnswer({ interactionId: id, answer: value, surface: 'inbox', answeredBy: 'ada' });

/** Every folded-runs bucket key (not the level key `rf`). */
async function buckets(): Promise<string[]> {
  return (await raw.keys(`${PREFIX}rf:*`)).sort();
}

/** The folded entry of `runId`, wherever it is. */
async function entryOf(runId: string): Promise<string | null> {
  for (const key of await buckets()) {
    const value = await raw.hget(key, runId);
    if (value !== null) return value;
  }
  return null;
}

async function handlerJob(runId: string, generation: number): Promise<HandlerJob | undefined> {
  // The parking identity's queue of handler "deploy" (one queue per identity: src/queue/queues.ts).
  const queueName = `handler-deploy~${Buffer.from(identity.name).toString('base64url')}`;
  const queue = new Queue<HandlerJob>(queueName, { connection: raw, prefix: '{fr}' });
  try {
    await until(async () => (await queue.getJob(resumeJobId(runId, generation))) !== undefined, 'the handler job');
    return (await queue.getJob(resumeJobId(runId, generation)))?.data;
  } finally {
    await queue.close();
  }
}

describe('a folded park', () => {
  it('keeps no run key: its run is one entry of a bucket, read as the hash would be', async () => {
    const id = await park('fold-read');
    expect(await raw.exists(runKey('fold-read'))).toBe(0);
    expect(await entryOf('fold-read')).toBe(`${id}\n=deploy`);
    const record = await gateway.service.getStored(id);
    expect(await runs.get('fold-read')).toEqual({
      runId: 'fold-read',
      status: 'parked',
      generation: 1,
      owner: IDENTITY,
      kind: 'tool',
      parentRunId: null,
      resume: { handler: 'deploy' },
      state: null,
      thread: null,
      outstanding: 1,
      asks: [{ interactionId: id, status: 'pending', result: null }],
      killedBy: null,
      attempts: 0,
      parkedAt: record.created_at,
      completedAt: null,
      checkpointRef: null,
    });
  });

  it('keeps an agent kind, a parent and a small state in its entry, and reads them back', async () => {
    const id = await park('fold-agent', {
      resume: { handler: 'deploy' },
      kind: 'agent',
      parent_run_id: 'fold-read',
      state: { step: 2 },
    });
    expect(await entryOf('fold-agent')).toBe(`${id}\n=deploy\nagent\nfold-read\n{"step":2}`);
    expect(await runs.get('fold-agent')).toMatchObject({ kind: 'agent', parentRunId: 'fold-read', state: { step: 2 } });
  });

  it('is unfolded by its answer: the run turns ready in that step, with the hash park-run would have written', async () => {
    const id = await park('fold-answer');
    const before = await runs.get('fold-answer');
    await answer(id);
    expect(await entryOf('fold-answer')).toBeNull();
    const fields = await raw.hgetall(runKey('fold-answer'));
    // The slot holds the answer (its result in 64-byte pieces: `a:<id>`, `a:<id>.1`, …).
    const whole = Object.keys(fields).filter((f) => !/\.[1-9][0-9]*$/.test(f));
    expect(whole.sort()).toEqual([`a:${id}`, 'ca', 'g', 'n', 'o', 'rs', 's']);
    expect(fields).toMatchObject({ s: 'ready', g: '1', n: '0', o: IDENTITY, rs: '=deploy' });
    expect(await raw.object('ENCODING', runKey('fold-answer'))).toBe('listpack');
    // Retention counted from this write, as from every write of a run.
    const ttl = await raw.pttl(runKey('fold-answer'));
    expect(ttl).toBeGreaterThan(RETENTION_MINUTES * 60_000 - 60_000);
    const after = await runs.get('fold-answer');
    expect(after).toMatchObject({ status: 'ready', generation: 1, outstanding: 0, parkedAt: before?.parkedAt });
    expect(after?.asks).toEqual([
      { interactionId: id, status: 'answered', result: expect.objectContaining({ answer: true }) },
    ]);
    // The one handler job of generation 1 is enqueued from the fields the settling step returned.
    expect(await handlerJob('fold-answer', 1)).toMatchObject({ v: 2, run_id: 'fold-answer', generation: 1 });
  });

  it('is parked: a second park of its run is refused until its continuation completes, then it parks again', async () => {
    const id = await park('fold-again');
    await expect(park('fold-again')).rejects.toMatchObject({ code: 'conflict' });
    expect(await entryOf('fold-again')).toBe(`${id}\n=deploy`); // the refused park changed nothing
    await answer(id);
    await expect(park('fold-again')).rejects.toMatchObject({ code: 'conflict' }); // ready: its resume is under way
    expect(await runs.complete('fold-again', 1)).toBe(1);
    // The run has a hash now (resumed): its next park is written there, generation 2, as before.
    const second = await park('fold-again');
    expect(await entryOf('fold-again')).toBeNull();
    expect(await runs.get('fold-again')).toMatchObject({
      status: 'parked',
      generation: 2,
      asks: [{ interactionId: second, status: 'pending', result: null }],
    });
  });

  it('is unfolded by a kill from its child and by a bound chat thread (its owner still checked)', async () => {
    const killed = await park('fold-kill');
    expect(await runs.kill('fold-kill', 'run:child-1')).toBe(1);
    expect(await runs.get('fold-kill')).toMatchObject({ status: 'dying', killedBy: 'run:child-1' });
    expect(await raw.hget(runKey('fold-kill'), `a:${killed}`)).toBe('');

    const bound = await park('fold-bind');
    const thread = { channel: 'telegram', recipient: '42', replyToMessageId: null, route: 'desk' };
    expect(await runs.checkpoints.bindThread('fold-bind', 'someone-else', thread)).toBe(false);
    expect(await runs.checkpoints.bindThread('fold-bind', IDENTITY, thread)).toBe(true);
    expect(await entryOf('fold-bind')).toBeNull();
    expect(await runs.get('fold-bind')).toMatchObject({
      status: 'parked',
      owner: IDENTITY,
      thread,
      asks: [{ interactionId: bound, status: 'pending', result: null }],
    });
  });

  it('exists for whoever asks whether the run exists, as its hash did', async () => {
    await park('fold-exists');
    expect(await raw.exists(runKey('fold-exists'))).toBe(0);
    expect(await runs.exists('fold-exists')).toBe(true);
    expect(await runs.exists('fold-never-parked')).toBe(false);
    await park(`fold-${'h'.repeat(70)}`); // not folded: a hash
    expect(await runs.exists(`fold-${'h'.repeat(70)}`)).toBe(true);
  });

  it('whose record is gone is no park: read as no run, and the run parks afresh', async () => {
    const id = await park('fold-stale');
    await raw.del(`${PREFIX}i:${id}`);
    expect(await runs.get('fold-stale')).toBeNull();
    expect(await runs.exists('fold-stale')).toBe(false);
    const again = await park('fold-stale');
    expect(await entryOf('fold-stale')).toBe(`${again}\n=deploy`);
  });

  it('is not used for a run id or a value longer than 64 bytes: those parks write the hash', async () => {
    const longId = `fold-${'x'.repeat(70)}`;
    await park(longId);
    expect(await raw.hget(runKey(longId), 's')).toBe('parked');
    await park('fold-long-state', { resume: { handler: 'deploy' }, state: { note: 'y'.repeat(60) } });
    expect(await raw.hget(runKey('fold-long-state'), 's')).toBe('parked');
    expect(await entryOf('fold-long-state')).toBeNull();
  });
});

describe('folded-runs buckets', () => {
  it('raise their level as they fill, stay listpack, find every run, and leave nothing once every ask is answered', async () => {
    const ids = new Map<string, string>();
    for (let i = 0; i < 200; i++) ids.set(`many-${i}`, await park(`many-${i}`));
    // 200 entries cannot fit in one bucket of 64: the level went up (to 2 or 3, as the hash spreads them).
    expect(Number(await raw.get(`${PREFIX}rf`))).toBeGreaterThanOrEqual(1);
    for (const key of await buckets()) {
      expect(await raw.object('ENCODING', key)).toBe('listpack');
      expect(await raw.hlen(key)).toBeLessThanOrEqual(64);
    }
    for (const [runId, id] of ids) {
      expect((await runs.get(runId))?.asks).toEqual([{ interactionId: id, status: 'pending', result: null }]);
    }
    for (const id of ids.values()) await answer(id);
    for (const key of await buckets())
      expect(Object.keys(await raw.hgetall(key)).filter((f) => f.startsWith('many-'))).toEqual([]);
    for (const runId of ids.keys()) expect((await runs.get(runId))?.status).toBe('ready');
  }, 120_000);
});

describe('a run parked before folding', () => {
  it('resumes on its answer as it always did', async () => {
    // The previous version wrote the run hash at park: write one exactly so, beside its record.
    const id = await park('old-form');
    const value = await entryOf('old-form');
    for (const key of await buckets()) await raw.hdel(key, 'old-form');
    expect(value).not.toBeNull();
    const parkedAt = Date.now();
    await raw.hset(runKey('old-form'), 'g', '1', 's', 'parked', 'n', '1', 'ca', String(parkedAt), 'o', IDENTITY);
    await raw.hset(runKey('old-form'), 'rs', '=deploy', `a:${id}`, '');
    await raw.pexpire(runKey('old-form'), RETENTION_MINUTES * 60_000);

    expect(await runs.get('old-form')).toMatchObject({ status: 'parked', parkedAt: new Date(parkedAt).toISOString() });
    await answer(id);
    expect(await runs.get('old-form')).toMatchObject({ status: 'ready', generation: 1, outstanding: 0 });
    expect(await handlerJob('old-form', 1)).toMatchObject({ run_id: 'old-form', generation: 1, type: 'run.resumed' });
  });
});
