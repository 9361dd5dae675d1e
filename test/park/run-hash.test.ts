import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../src/core/types.js';
import type { Gateway } from '../../src/gateway.js';
import type { RedisRunStore } from '../../src/store/redis/run-store.js';
import { Queue } from 'bullmq';
import type { HandlerJob } from '../../src/runs/job-protocol.js';
import { resumeJobId } from '../../src/runs/job-bus.js';
import { parkOnOneAsk, until, useParkWorld, webhookSecret } from './helpers.js';

/**
 * The run hash's memory layout (src/runs/run-store.ts): defaults are not stored, and caller-sized values are kept in
 * 64-byte pieces, so a park stays listpack-encoded whatever its webhook URL, identity, parent, state or thread —
 * and every value reads back byte-exactly.
 */

const PREFIX = '{rh}:';
const RETENTION_MINUTES = 120;
const TOKEN = 'run-hash-token-0123456789abcdef';
// Longer than 64 bytes each, so each would turn a plain hash into a hashtable.
const LONG_IDENTITY = 'deployment-approvals-agent-of-the-payments-platform-team-eu-west-1-prod';
const LONG_WEBHOOK = 'https://hooks.example-tenant.com/askgate/resume/agent-deployments?team=payments&region=eu-west-1';
const LONG_PARENT = `orchestrator:${'p'.repeat(90)}`;
// Multi-byte characters placed so that 64-byte pieces split some of them.
const LONG_STATE = {
  step: 3,
  plan: ['build', 'test', 'deploy'],
  note: 'Grüße, 設計 ✓ 🚀 '.repeat(12),
  target: 'payments-api',
};

let raw: Redis;
let gateway: Gateway;
let identity: Identity;
let runs: RedisRunStore;

useParkWorld(
  {
    prefix: PREFIX,
    token: TOKEN,
    identity: LONG_IDENTITY,
    retentionMinutes: RETENTION_MINUTES,
    tokenFields: { webhook_secret: webhookSecret() },
  },
  (world) => {
    ({ raw, gateway, identity, runs } = world);
  },
);

const runKey = (runId: string) => `${PREFIX}r:${runId}`;

const park = (runId: string, run: Record<string, unknown>) => parkOnOneAsk(gateway, identity, runId, run);

/** Asserts the hash is a listpack and no field or value is longer than hash-max-listpack-value (64). */
async function expectCompact(runId: string): Promise<void> {
  expect(await raw.object('ENCODING', runKey(runId))).toBe('listpack');
  const h = await raw.hgetallBuffer(runKey(runId));
  for (const [field, value] of Object.entries(h)) {
    expect(Buffer.byteLength(field)).toBeLessThanOrEqual(64);
    expect(value.length).toBeLessThanOrEqual(64);
  }
}

describe('the run hash stays compact', () => {
  it('stores a typical handler park with only the fields that are not defaults', async () => {
    const id = await park('typical', { resume: { handler: 'deploy' } });
    // A one-ask park of a fresh run is folded (test/park/folded-run.test.ts): no hash until the step that needs one.
    expect(await raw.exists(runKey('typical'))).toBe(0);
    const view = await runs.get('typical');
    expect(view).toMatchObject({
      status: 'parked',
      generation: 1,
      owner: LONG_IDENTITY,
      kind: 'tool',
      parentRunId: null,
      resume: { handler: 'deploy' },
      state: null,
      thread: null,
      outstanding: 1,
      killedBy: null,
      attempts: 0,
      completedAt: null,
    });
    expect(view?.asks).toEqual([{ interactionId: id, status: 'pending', result: null }]);
    // The kill writes the hash park-run would have written, with only the fields that are not defaults.
    expect(await runs.kill('typical', 'run:child')).toBe(1);
    const fields = Object.keys(await raw.hgetall(runKey('typical'))).sort();
    expect(fields).toEqual([`a:${id}`, 'ca', 'g', 'n', 'o', 'o.1', 'rs', 's', 'x']);
    await expectCompact('typical');
  });

  it(
    'keeps a park with a long webhook URL, identity, parent and multi-byte state listpack-encoded, ' +
      'and reads them back exactly',
    async () => {
      await park('long', {
        resume: { webhook: LONG_WEBHOOK },
        kind: 'agent',
        parent_run_id: LONG_PARENT,
        state: LONG_STATE,
      });
      await expectCompact('long');
      expect(await raw.hexists(runKey('long'), 'st.3')).toBe(1); // the state really is in pieces
      const view = await runs.get('long');
      expect(view).toMatchObject({
        owner: LONG_IDENTITY,
        kind: 'agent',
        parentRunId: LONG_PARENT,
        resume: { webhook: LONG_WEBHOOK },
        state: LONG_STATE,
      });
      // Retention from the park, as before.
      const ttl = await raw.pttl(runKey('long'));
      expect(ttl).toBeGreaterThan(RETENTION_MINUTES * 60_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(RETENTION_MINUTES * 60_000);
    },
  );

  it("drops the previous park's pieces and defaults when the run parks again with shorter values", async () => {
    const first = await park('again', {
      resume: { webhook: LONG_WEBHOOK },
      kind: 'agent',
      parent_run_id: LONG_PARENT,
      state: LONG_STATE,
    });
    await gateway.service.offerAnswer({
      interactionId: first,
      answer: true,
      surface: 'inbox',
      answeredBy: LONG_IDENTITY,
    });
    expect((await runs.get('again'))?.status).toBe('ready');
    await runs.recordAttempt('again');
    expect(await runs.complete('again', 1)).toBe(1);

    const second = await park('again', { resume: { handler: 'next' } });
    await expectCompact('again');
    const fields = Object.keys(await raw.hgetall(runKey('again'))).sort();
    // ra (completed at) is kept from the previous park, as it always was; nothing else of it remains.
    expect(fields).toEqual([`a:${second}`, 'ca', 'g', 'n', 'o', 'o.1', 'ra', 'rs', 's']);
    expect(await runs.get('again')).toMatchObject({
      status: 'parked',
      generation: 2,
      kind: 'tool',
      parentRunId: null,
      resume: { handler: 'next' },
      state: null,
      attempts: 0,
      killedBy: null,
    });
  });

  it('stores a handler target as = and its name, reads it back, and still reads a target stored as JSON', async () => {
    await park('short-target', { resume: { handler: 'deploy' } });
    expect((await runs.get('short-target'))?.resume).toEqual({ handler: 'deploy' });
    await runs.kill('short-target', 'run:child'); // unfolds the park into its hash
    expect(await raw.hget(runKey('short-target'), 'rs')).toBe('=deploy');
    expect((await runs.get('short-target'))?.resume).toEqual({ handler: 'deploy' });
    // A webhook target keeps its JSON.
    await park('webhook-target', { resume: { webhook: 'https://hooks.example.com/r' } });
    await runs.kill('webhook-target', 'run:child');
    expect(await raw.hget(runKey('webhook-target'), 'rs')).toBe('{"webhook":"https://hooks.example.com/r"}');
    expect((await runs.get('webhook-target'))?.resume).toEqual({ webhook: 'https://hooks.example.com/r' });
    // A run parked before the = form holds its handler target as JSON.
    await raw.hset(runKey('short-target'), 'rs', '{"handler":"deploy"}');
    expect((await runs.get('short-target'))?.resume).toEqual({ handler: 'deploy' });
  });

  it('keeps a long kill cause in pieces', async () => {
    await park('killed', { resume: { handler: 'deploy' } });
    const cause = `run:${'c'.repeat(150)}`;
    expect(await runs.kill('killed', cause)).toBe(1);
    await expectCompact('killed');
    expect(await runs.get('killed')).toMatchObject({ status: 'dying', killedBy: cause });
  });

  it('binds a long chat thread in pieces, refuses another owner, and keeps the thread through the park', async () => {
    const thread = {
      channel: 'telegram',
      recipient: '-1001234567890',
      replyToMessageId: '812',
      route: `desk-${'r'.repeat(80)}`,
    };
    expect(await runs.checkpoints.bindThread('turn:telegram:-1001234567890:812', LONG_IDENTITY, thread)).toBe(true);
    expect(await runs.checkpoints.bindThread('turn:telegram:-1001234567890:812', 'someone-else', thread)).toBe(false);
    await expectCompact('turn:telegram:-1001234567890:812');
    const ttl = await raw.pttl(runKey('turn:telegram:-1001234567890:812'));
    expect(ttl).toBeGreaterThan(0); // a bound hash is never left without an expiry

    const id = await park('turn:telegram:-1001234567890:812', { resume: { handler: 'desk' }, state: LONG_STATE });
    await expectCompact('turn:telegram:-1001234567890:812');
    expect(await runs.get('turn:telegram:-1001234567890:812')).toMatchObject({
      owner: LONG_IDENTITY,
      thread,
      state: LONG_STATE,
    });

    // The handler job handed to the SDK workers (job protocol v2) carries the whole thread, joined from its pieces,
    // for the park that is due (generation 1, ready).
    await gateway.service.offerAnswer({
      interactionId: id,
      answer: true,
      surface: 'telegram',
      answeredBy: 'telegram:@ada',
    });
    const runId = 'turn:telegram:-1001234567890:812';
    expect(await runs.get(runId)).toMatchObject({ status: 'ready', generation: 1 });
    // The parking identity's queue of handler "desk" (one queue per identity: src/queue/queues.ts).
    const queueName = `handler-desk~${Buffer.from(identity.name).toString('base64url')}`;
    const handlerQueue = new Queue<HandlerJob>(queueName, { connection: raw, prefix: '{rh}' });
    try {
      await until(async () => (await handlerQueue.getJob(resumeJobId(runId, 1))) !== undefined, 'the handler job');
      const job = await handlerQueue.getJob(resumeJobId(runId, 1));
      expect(job?.data).toMatchObject({ v: 2, run_id: runId, generation: 1, type: 'run.resumed' });
      expect(job?.data.thread).toEqual(thread);
    } finally {
      await handlerQueue.close();
    }
  });
});

describe('attempt outcomes', () => {
  it('keeps the last 10 outcomes of the current park, oldest first, apart from the hash, for the retention', async () => {
    await park('outcomes', { resume: { webhook: LONG_WEBHOOK } });
    const at = (i: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString();
    // One outcome of an earlier park: not shown for this one.
    await runs.recordOutcome('outcomes', { at: at(0), park: 0, outcome: 'delivered', status: 200 });
    for (let i = 1; i <= 14; i++)
      await runs.recordOutcome('outcomes', { at: at(i), park: 1, outcome: 'http_error', status: 500 + i });
    const kept = await runs.outcomes('outcomes', 1);
    expect(kept.map((o) => o.status)).toEqual([505, 506, 507, 508, 509, 510, 511, 512, 513, 514]);
    expect(kept[0]).toEqual({ at: at(5), park: 1, outcome: 'http_error', status: 505 });
    expect(await runs.outcomes('outcomes', 0)).toEqual([]); // trimmed away with the oldest
    expect(await raw.llen(`${PREFIX}ro:outcomes`)).toBe(10);
    // The hash is untouched: the outcomes' JSON would convert it out of listpack.
    await expectCompact('outcomes');
    const ttl = await raw.pttl(`${PREFIX}ro:outcomes`);
    expect(ttl).toBeGreaterThan(RETENTION_MINUTES * 60_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MINUTES * 60_000);
  });
});
