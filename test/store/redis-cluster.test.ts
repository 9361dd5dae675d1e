import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFacts } from '../../src/core/interaction-service.js';
import type { InteractionEvent } from '../../src/core/types.js';
import { RedisConnections } from '../../src/store/redis/connections.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { AnswerFacts, Resolution, StoreOptions } from '../../src/store/store.js';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import {
  holds,
  inMs,
  spawnContinuationWorker,
  startReceiver,
  startRecorder,
  stopChild,
  until,
  webhookSecret,
  type Receiver,
  type Recorder,
} from '../park/helpers.js';
import { answer, eventually, makeInteraction, runStoreContract, type StoreHandle } from './contract.js';
import { lookupsUnder } from './fixtures.js';

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

  it('lets exactly one of 60 concurrent answers spread over two store instances win, and both see its event', async () => {
    const prefix = uniquePrefix();
    const [one, two] = await Promise.all([
      openStore({ idleTtlSeconds: 60, prefix }),
      openStore({ idleTtlSeconds: 60, prefix }),
    ]);
    const seen: InteractionEvent[] = [];
    two.store.subscribe((e) => seen.push(e));
    const record = makeInteraction({ answer_format: 'select', choices: ['a', 'b'] });
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
  });

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

describe('parks on a Redis Cluster, across processes', () => {
  const TOKEN = 'cluster-park-token-alice-0123456789';
  const PREFIX = '{cp}:';
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
    expect(res.status).toBe(201);
    expect(res.json['suspended']).toBe(true);
    return res.json['id'] as string;
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
    const sdkWorker = await spawnContinuationWorker({
      REDIS_URL: cluster.url,
      ASKGATE_REDIS_PREFIX: PREFIX,
      RECORDER: recorder.url,
    });
    children.push(sdkWorker);
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
});

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
