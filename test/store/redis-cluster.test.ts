import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFacts } from '../../src/core/interaction-service.js';
import { shardOfId, shardOfName } from '../../src/core/shard-ids.js';
import { resumeJobId } from '../../src/runs/job-bus.js';
import type { InteractionEvent, RunSpec } from '../../src/core/types.js';
import { DEFAULT_KEY_PREFIX } from '../../src/store/keys.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { RunLocator } from '../../src/store/redis/run-locator.js';
import { RedisRunStore } from '../../src/store/redis/run-store.js';
import { recordShards } from '../../src/store/redis/shard-record.js';
import { ShardedRunStore } from '../../src/store/redis/sharded-runs.js';
import { ShardedStore } from '../../src/store/redis/sharded-store.js';
import type { AnswerFacts, PendingPage, Resolution, StoreOptions } from '../../src/store/store.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import {
  holds,
  inMs,
  startReceiver,
  startRecorder,
  startSdkWorker,
  stopChild,
  until,
  webhookSecret,
  type Receiver,
  type Recorder,
} from '../park/helpers.js';
import { answer, eventually, makeInteraction, runStoreContract, type StoreHandle } from './contract.js';
import { keysUnder, lookupsUnder, spreadFixtureIds } from './fixtures.js';

/**
 * askgate on a real Redis Cluster (three masters, `redis+cluster://` seeds): the store contract suite, the answer
 * races, and parks resumed by `askgate serve` / `askgate worker` / SDK worker processes. One cluster for the file.
 * Every key still carries one hash tag, so each store's keys live on one master; the prefixes here differ per store,
 * so the file's stores land on all three masters.
 */

let cluster: RedisClusterHandle;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
});

function uniquePrefix(): string {
  return `{k${randomBytes(6).toString('hex')}}:`;
}

/** ASKGATE_SHARDS of the sharded cases in this file (the park cases use 12 too). */
const SHARDS = 12;

/**
 * A sharded store (SHARDS shards, the router of sharded-store.ts) under a fresh `{T}:` prefix, as the gateway builds
 * it with ASKGATE_SHARDS; fixture ids are spread over its shards (`spreadFixtureIds`), so every shard is used.
 */
async function openShardedStore(
  options: StoreOptions & { prefix?: string },
): Promise<StoreHandle & { store: ShardedStore }> {
  const prefix = options.prefix ?? uniquePrefix();
  const connections = new RedisConnections({ url: cluster.url, prefix, shards: SHARDS });
  const store = await ShardedStore.connect({
    url: cluster.url,
    connections,
    shards: SHARDS,
    idleTtlSeconds: options.idleTtlSeconds,
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await connections.close();
    },
    // Each shard's lookups live under its own prefix, on the master of its tag's slot.
    recipientIndexes: async () =>
      (await Promise.all(connections.shardKeys.map(async (keys) => (await lookupsOf(keys.prefix)).recipients)))
        .flat()
        .sort(),
    deliveryLookups: async () =>
      (await Promise.all(connections.shardKeys.map(async (keys) => (await lookupsOf(keys.prefix)).deliveries)))
        .flat()
        .sort(),
  };
}

async function openStore(options: StoreOptions & { prefix?: string }): Promise<StoreHandle & { store: RedisStore }> {
  options = { ...options, prefix: options.prefix ?? uniquePrefix() };
  const store = await RedisStore.connect({
    url: cluster.url,
    prefix: options.prefix as string,
    idleTtlSeconds: options.idleTtlSeconds,
  });
  const prefix = options.prefix ?? '';
  // Each store has a prefix of its own, and the cluster goes when the file ends: nothing to delete.
  return {
    store,
    cleanup: () => store.close(),
    recipientIndexes: async () => (await lookupsOf(prefix)).recipients,
    deliveryLookups: async () => (await lookupsOf(prefix)).deliveries,
  };
}

/** The lookups of a prefix: every key of it lives on the master of its hash tag's slot. */
async function lookupsOf(prefix: string): Promise<{ recipients: string[]; deliveries: string[] }> {
  const master = await cluster.masterOf(prefix);
  const raw = new Redis(master.url, { lazyConnect: true });
  try {
    await raw.connect();
    return await lookupsUnder(raw, prefix);
  } finally {
    raw.disconnect();
  }
}

runStoreContract('RedisStore on a Redis Cluster', openStore);

describe(`ASKGATE_SHARDS=${SHARDS} on a Redis Cluster`, () => {
  beforeAll(() => spreadFixtureIds(SHARDS));
  afterAll(() => spreadFixtureIds(1));
  runStoreContract(`ShardedStore (${SHARDS} shards) on a Redis Cluster`, openShardedStore);
});

const answered = (value: unknown): Resolution => ({
  status: 'answered',
  result: answer(value),
  resolvedAt: new Date().toISOString(),
});

describe('RedisStore on a Redis Cluster', () => {
  it('opens an ioredis Cluster for its connections and works whichever master holds its slot', async () => {
    const connections = new RedisConnections({ url: cluster.url });
    expect(connections.cluster).toBe(true);
    await connections.close();
    // Prefixes whose slots sit on each of the three masters: a create, an answer and a read work on every one.
    const masters = new Map<number, string>();
    for (let i = 0; masters.size < 3 && i < 200; i++) {
      const prefix = uniquePrefix();
      masters.set((await cluster.masterOf(`${prefix}x`)).port, prefix);
    }
    expect(masters.size).toBe(3);
    for (const prefix of masters.values()) {
      const { store, cleanup } = await openStore({ idleTtlSeconds: 60, prefix });
      const record = makeInteraction();
      await store.create(record);
      expect((await store.resolve(record.id, answered('ok'))).kind).toBe('resolved');
      expect((await store.get(record.id))?.result?.answer).toBe('ok');
      await cleanup();
    }
  });

  it.each([
    ['one shard', 1],
    [`${SHARDS} shards`, SHARDS],
  ])(
    'lets exactly one of 60 concurrent answers spread over two store instances win, and both see its event (%s)',
    async (_, shards) => {
      const prefix = uniquePrefix();
      const open = shards === 1 ? openStore : openShardedStore;
      const [one, two] = await Promise.all([
        open({ idleTtlSeconds: 60, prefix }),
        open({ idleTtlSeconds: 60, prefix }),
      ]);
      const seen: InteractionEvent[] = [];
      two.store.subscribe((e) => seen.push(e));
      await two.store.eventsReady();
      // With shards, the question lives in the last shard (a marked id): the claims are routed there by its id.
      const record = makeInteraction({
        answer_format: 'select',
        choices: ['a', 'b'],
        ...(shards === 1 ? {} : { id: `${randomBytes(12).toString('base64url')}.${shards - 1}` }),
      });
      await one.store.create(record);
      await eventually(() => expect(seen.some((e) => e.type === 'interaction.created')).toBe(true), 10_000);
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const value = i % 2 ? 'a' : 'b';
          return (i % 2 ? one : two).store.claimAnswer(record.id, answered(value), answerFacts(value) as AnswerFacts);
        }),
      );
      expect(outcomes.filter((o) => o.kind === 'resolved')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'not_pending')).toHaveLength(59);
      await eventually(() => expect(seen.filter((e) => e.type === 'interaction.answered')).toHaveLength(1), 10_000);
      await Promise.all([one.cleanup(), two.cleanup()]);
    },
  );

  it.each([
    ['a run hash', 'alice'],
    ['a folded one-ask park', 'ci-bot'],
  ] as const)(
    'finds a run parked with one shard (%s) after the store grows to 12, its shard 0 on another master than its new one',
    async (form, owner) => {
      const prefix = uniquePrefix();
      const tag = prefix.slice(1, -2);
      const home = (await cluster.masterOf(`${prefix}x`)).port;
      // A run id whose shard among 12 is served by another master than shard 0: the look-up crosses masters.
      let runId = '';
      for (let i = 0; runId === '' && i < 500; i++) {
        const k = shardOfName(`run-grown-${i}`, SHARDS);
        if (k !== 0 && (await cluster.masterOf(`{${tag}:${k}}:x`)).port !== home) runId = `run-grown-${i}`;
      }
      expect(runId).not.toBe('');
      const one = new RedisConnections({ url: cluster.url, prefix });
      const oneRuns = new RedisRunStore(one, 600_000, 600_000);
      const ask = makeInteraction({ mode: 'async', run_id: runId });
      const run: RunSpec = { run_id: runId, kind: 'tool', parent_run_id: null, state: null, resume: { handler: 'h' } };
      // The asker parking its own run on one ask folds it (no run hash); another owner keeps a hash.
      await oneRuns.park({ owner, run, thread: null, records: [ask], unlisted: new Set() });
      expect(await one.command().exists(one.keys.run(runId))).toBe(form === 'a run hash' ? 1 : 0);
      await one.close();

      const grown = new RedisConnections({ url: cluster.url, prefix, shards: SHARDS });
      expect(await recordShards(grown.command(), grown.keys, SHARDS)).toMatchObject({ ok: true, earlier: [1] });
      const store = await ShardedStore.connect({
        url: cluster.url,
        connections: grown,
        shards: SHARDS,
        idleTtlSeconds: 60,
      });
      const runs = new ShardedRunStore(
        grown.shardKeys.map((keys) => new RedisRunStore(grown, 600_000, 600_000, false, keys)),
        new RunLocator(grown.command(), grown.shardKeys),
      );
      expect((await runs.get(runId))?.status).toBe('parked');
      expect(await store.resolve(ask.id, answered(true))).toMatchObject({
        kind: 'resolved',
        run: { runId, verdict: 'ready' },
      });
      expect(await runs.complete(runId, 1)).toBe(1);
      expect((await runs.get(runId))?.status).toBe('resumed');
      await store.close();
      await grown.close();
    },
  );

  it(`spreads 3,000 pending questions over the three masters with ASKGATE_SHARDS=${SHARDS} (each holds 20–47 %)`, async () => {
    // The default prefix: its twelve tags {askgate}, {askgate:1} … {askgate:11} fall 5 / 4 / 3 on the three masters
    // of `redis-cli --cluster create` (slots split evenly), which no other test in this file uses.
    const { store, cleanup } = await openShardedStore({ idleTtlSeconds: 60, prefix: DEFAULT_KEY_PREFIX });
    const total = 3_000;
    for (let i = 0; i < total; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          const id = await store.newInteractionId({ runId: null, groupId: null });
          await store.create(makeInteraction({ id }));
        }),
      );
    }
    // Each master's own connection: count the interaction records it holds (SCAN, the keys of askgate's tags only).
    const masters = cluster.nodes.filter((n) => n.alive);
    expect(masters).toHaveLength(3);
    const held = await Promise.all(
      masters.map(async (node) => {
        const raw = new Redis(node.url, { lazyConnect: true });
        try {
          await raw.connect();
          return (await keysUnder(raw, '{askgate')).filter((k) => /^\{askgate(:\d+)?\}:i:/.test(k)).length;
        } finally {
          raw.disconnect();
        }
      }),
    );
    expect(held.reduce((a, b) => a + b, 0)).toBe(total);
    for (const count of held) {
      expect(count / total).toBeGreaterThanOrEqual(0.2);
      expect(count / total).toBeLessThanOrEqual(0.47);
    }
    // The merged list still pages them all.
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page: PendingPage = await store.listPending({ limit: 500, cursor, groupId: null });
      listed += page.items.length;
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(listed).toBe(total);
    await cleanup();
  }, 120_000);

  it('claims with WAIT (ASKGATE_REDIS_WAIT_REPLICAS) refuse to acknowledge what no replica holds', async () => {
    // This cluster has no replicas: a claim that asks for one is written but answered store_unavailable, never as safe.
    const connections = new RedisConnections({
      url: cluster.url,
      prefix: uniquePrefix(),
      waitReplicas: 1,
      waitTimeoutMs: 100,
    });
    const store = await RedisStore.connect({ url: cluster.url, connections, idleTtlSeconds: 60 });
    const record = makeInteraction();
    await store.create(record);
    await expect(store.resolve(record.id, answered('x'))).rejects.toMatchObject({
      code: 'store_unavailable',
      message: expect.stringMatching(/0 of 1 replicas confirmed it/),
    });
    await store.close();
    await connections.close();
  });
});

/**
 * The park cases, with one shard (every key under `{cp}`) and with ASKGATE_SHARDS=12 (`{cp12}`, `{cp12:1}` … `{cp12:11}`:
 * questions, runs, BullMQ queues and completions streams spread over the three masters). Each run id parks in the
 * shard its name hashes to; every worker process works every shard's queues.
 */
for (const shards of [1, 12]) parksAcrossProcesses(shards);

function parksAcrossProcesses(shards: number): void {
  describe(`parks on a Redis Cluster, across processes (ASKGATE_SHARDS=${shards})`, () => {
    const TOKEN = 'cluster-park-token-alice-0123456789';
    const PREFIX = shards === 1 ? '{cp}:' : `{cp${shards}}:`;
    const SECRET = webhookSecret();
    let serveA: GatewayProcess;
    let serveB: GatewayProcess;
    let worker: GatewayProcess;
    let receiver: Receiver;
    let recorder: Recorder;
    let env: Record<string, string>;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      [receiver, recorder] = await Promise.all([startReceiver(SECRET), startRecorder()]);
      env = {
        REDIS_URL: cluster.url,
        ASKGATE_REDIS_PREFIX: PREFIX,
        ASKGATE_TOKENS: JSON.stringify({
          [TOKEN]: { identity: 'alice', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
        }),
        ASKGATE_RESUME_BACKOFF_MS: '100',
        ASKGATE_SHARDS: String(shards),
      };
      [serveA, serveB, worker] = await Promise.all([
        spawnGateway('serve', env),
        spawnGateway('serve', env),
        spawnGateway('worker', env),
      ]);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(children.map((c) => stopChild(c, 'SIGKILL')));
      await Promise.all([serveA?.stop(), serveB?.stop(), worker?.stop()]);
      await Promise.all([receiver?.close(), recorder?.close()]);
    });

    const onA = () => api(serveA.url as string, TOKEN);
    const onB = () => api(serveB.url as string, TOKEN);
    const deliveriesFor = (runId: string) => receiver.deliveries.filter((d) => d.body['run_id'] === runId);

    async function park(runId: string, resume: Record<string, string>): Promise<string> {
      const res = await onA().post('/api/interactions', {
        question: 'Ship it?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: inMs(3_600_000),
        run: { run_id: runId, resume, state: { step: 3 } },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json['suspended']).toBe(true);
      const id = res.json['id'] as string;
      // The ask lives in its run's shard (a plain id in shard 0), so the answer's claim readies the run in one step.
      expect(shardOfId(id, shards)).toBe(shardOfName(runId, shards));
      return id;
    }

    it('parks through one serve, is answered on another, and is resumed once by a worker with a retried webhook', async () => {
      const id = await park('run-cluster-webhook', { webhook: `${receiver.url}/fail-first/hook` });
      expect((await onB().post(`/api/interactions/${id}/answer`, { answer: true })).json['status']).toBe('answered');
      await until(
        async () => (await onA().get('/api/runs/run-cluster-webhook')).json['status'] === 'resumed',
        'the run to resume',
      );
      await holds(() => deliveriesFor('run-cluster-webhook').length === 1, 'one delivery of run-cluster-webhook');
      expect(deliveriesFor('run-cluster-webhook')[0]?.body).toMatchObject({
        type: 'run.resumed',
        interaction_id: id,
        ask_result: { answer: true },
        state: { step: 3 },
      });
      expect(receiver.refused).toContain(deliveriesFor('run-cluster-webhook')[0]?.id);
      expect(receiver.unverified).toBe(0);
    });

    it('gives one resume for 100 concurrent duplicate answers spread over two serve processes', async () => {
      const id = await park('run-cluster-dupes', { webhook: `${receiver.url}/hook` });
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? onA() : onB()).post(`/api/interactions/${id}/answer`, { answer: i % 3 === 0 }),
        ),
      );
      const statuses = answers.map((r) => r.json['status']);
      expect(statuses.filter((s) => s === 'answered')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'already_answered')).toHaveLength(99);
      await until(
        async () => (await onB().get('/api/runs/run-cluster-dupes')).json['status'] === 'resumed',
        'the run to resume',
      );
      await holds(() => deliveriesFor('run-cluster-dupes').length === 1, 'one delivery of run-cluster-dupes');
    });

    it('resumes a handler continuation in an SDK worker process connected to the cluster', async () => {
      await startSdkWorker({ gatewayUrl: serveA.url as string, token: TOKEN, recorderUrl: recorder.url }, children);
      const id = await park('run-cluster-handler', { handler: 'note' });
      await onB().post(`/api/interactions/${id}/answer`, { answer: false });
      await until(
        async () => (await onA().get('/api/runs/run-cluster-handler')).json['status'] === 'resumed',
        'the handler run to resume',
      );
      const completed = () =>
        recorder.events.filter((e) => e.event === 'completed' && e.continuation['run_id'] === 'run-cluster-handler');
      await holds(() => completed().length === 1, 'one completed continuation');
      expect(completed()[0]?.continuation).toMatchObject({ interaction_id: id, ask_result: { answer: false } });
    });

    if (shards > 1) {
      it('resumes runs parked in many shards exactly once each, by webhook and by an SDK worker, and spreads their queues', async () => {
        await startSdkWorker({ gatewayUrl: serveA.url as string, token: TOKEN, recorderUrl: recorder.url }, children);
        // 24 runs of each kind: their ids hash to (nearly) every one of the 12 shards.
        const hooks = Array.from({ length: 24 }, (_, i) => `run-shards-hook-${i}`);
        const handled = Array.from({ length: 24 }, (_, i) => `run-shards-handler-${i}`);
        const ids = new Map<string, string>();
        for (const runId of hooks) ids.set(runId, await park(runId, { webhook: `${receiver.url}/hook` }));
        for (const runId of handled) ids.set(runId, await park(runId, { handler: 'note' }));
        const runShards = new Set([...ids.keys()].map((runId) => shardOfName(runId, shards)));
        expect(runShards.size).toBeGreaterThanOrEqual(8);
        // Each answered on one serve process, duplicated on the other: one claim wins per ask.
        await Promise.all(
          [...ids.values()].map(async (id) => {
            const [a, b] = await Promise.all([
              onA().post(`/api/interactions/${id}/answer`, { answer: true }),
              onB().post(`/api/interactions/${id}/answer`, { answer: true }),
            ]);
            expect([a.json['status'], b.json['status']].sort()).toEqual(['already_answered', 'answered']);
          }),
        );
        const completed = (runId: string) =>
          recorder.events.filter((e) => e.event === 'completed' && e.continuation['run_id'] === runId);
        await until(
          async () => {
            const views = await Promise.all([...ids.keys()].map((runId) => onA().get(`/api/runs/${runId}`)));
            return views.every((v) => v.json['status'] === 'resumed');
          },
          'every run of every shard to resume',
          60_000,
        );
        // The worker tells the recorder after its completion was taken, so a run can read resumed a moment before
        // the recorder has heard: wait for every report, then watch that none comes twice.
        await until(
          async () =>
            hooks.every((r) => deliveriesFor(r).length >= 1) && handled.every((r) => completed(r).length >= 1),
          'a delivery of each webhook run and a completed continuation of each handler run',
        );
        await holds(
          () => hooks.every((r) => deliveriesFor(r).length === 1) && handled.every((r) => completed(r).length === 1),
          'one delivery of each webhook run and one completed continuation of each handler run',
        );

        // The queue keys of these runs live in their runs' shards, on more than one master.
        const queueKeys = await keysOnEveryMaster(`{cp${shards}*}:`);
        const tagOf = (key: string): number => Number(/^\{cp\d+(?::(\d+))?\}/.exec(key)?.[1] ?? 0);
        const resumeShards = new Set(queueKeys.filter((k) => k.key.includes('}:resume:')).map((k) => tagOf(k.key)));
        const handlerShards = new Set(
          queueKeys.filter((k) => k.key.includes('}:handler-note~')).map((k) => tagOf(k.key)),
        );
        // (The earlier cases of this block parked a few more runs: their shards may add to these sets.)
        for (const runId of hooks) expect(resumeShards).toContain(shardOfName(runId, shards));
        for (const runId of handled) expect(handlerShards).toContain(shardOfName(runId, shards));
        expect(resumeShards.size).toBeGreaterThanOrEqual(8);
        // Each shard a handler queue lives in gets its completions stream, made by the worker process as each of its
        // shard readers starts (one after another on a loaded machine: the last may come after the runs resumed).
        await until(async () => {
          const keys = await keysOnEveryMaster(`{cp${shards}*}:`);
          const streams = keys.filter((k) => k.key.endsWith('}:completions'));
          const streamShards = new Set(streams.map((k) => tagOf(k.key)));
          return [...handlerShards].every((shard) => streamShards.has(shard));
        }, 'a completions stream in every shard a handler queue lives in');
        const mastersWithQueues = new Set(
          queueKeys.filter((k) => /\}:(resume|handler-note~[A-Za-z0-9_-]+):/.test(k.key)).map((k) => k.master),
        );
        expect(mastersWithQueues.size).toBeGreaterThanOrEqual(2);
        // And a job sits in the queue of its run's shard: the resume job of each webhook run, by its deterministic id.
        for (const runId of hooks) {
          const shard = shardOfName(runId, shards);
          const tag = shard === 0 ? `{cp${shards}}` : `{cp${shards}:${shard}}`;
          expect(queueKeys.map((k) => k.key)).toContain(`${tag}:resume:${resumeJobId(runId, 1)}`);
        }
      }, 120_000);
    }
  });
}

/** Every key under `prefix` on each node (this file's cluster has no replicas: every node is a master). */
async function keysOnEveryMaster(prefix: string): Promise<Array<{ key: string; master: number }>> {
  const found: Array<{ key: string; master: number }> = [];
  for (const node of cluster.nodes) {
    const raw = new Redis(node.url, { lazyConnect: true });
    try {
      await raw.connect();
      for (const key of await keysUnder(raw, prefix)) found.push({ key, master: node.port });
    } finally {
      raw.disconnect();
    }
  }
  return found;
}

describe('npm start (one process: doors and workers) on a Redis Cluster', () => {
  const TOKEN = 'cluster-all-token-bob-0123456789';
  let all: GatewayProcess;
  let serve: GatewayProcess;

  beforeAll(async () => {
    const env = {
      REDIS_URL: cluster.url,
      ASKGATE_REDIS_PREFIX: '{ca}:',
      ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'bob', scopes: ['read', 'write', 'answer'] } }),
    };
    all = await spawnGateway('all', env);
    serve = await spawnGateway('serve', env);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([all?.stop(), serve?.stop()]);
  });

  it('wakes a result wait on it when the answer lands on another process (events through the cluster)', async () => {
    const created = await api(all.url as string, TOKEN).post('/api/interactions', {
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu', 'us'],
    });
    const id = created.json['id'] as string;
    const waiting = api(all.url as string, TOKEN).get(`/api/interactions/${id}/result?wait=60`);
    expect(
      (await api(serve.url as string, TOKEN).post(`/api/interactions/${id}/answer`, { answer: 'eu' })).status,
    ).toBe(200);
    const result = await waiting;
    expect(result.json['status']).toBe('answered');
    expect((result.json['result'] as Record<string, unknown>)['answer']).toBe('eu');
  });

  it('expires a sync ask whose timeout passes, and the other process reads it expired', async () => {
    const created = await api(serve.url as string, TOKEN).post('/api/interactions', {
      question: 'Fast?',
      answer_format: 'confirm',
      timeout: 0.5,
    });
    const id = created.json['id'] as string;
    await until(
      async () => (await api(serve.url as string, TOKEN).get(`/api/interactions/${id}`)).json['status'] === 'expired',
      'the ask to expire',
    );
  });
});
