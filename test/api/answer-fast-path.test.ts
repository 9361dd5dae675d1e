import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeJobId } from '../../src/runs/job-bus.js';
import { startWorker, type Continuation } from 'askgate-sdk';
import type { TestGateway } from '../helpers/gateway.js';
import { startWriterReaderGateway } from '../helpers/redis-gateway.js';
import type { RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The one-round-trip answer on Redis: the answer door served ahead of express (src/doors/answer-fast.ts), the claim
 * that checks text / confirm / select itself (Store.claimAnswer), and a handler run's continuation enqueued straight
 * onto its handler queue. Every refusal must read exactly as the express door's read → validate → claim path.
 */

const WRITER = 'answer-fast-writer-token-0123456789';
const READER = 'answer-fast-reader-token-0123456789';
const PREFIX = `{fast${Date.now()}}:`;
const QUEUE_PREFIX = PREFIX.slice(0, -1);

let redis: RedisServerHandle;
let gw: TestGateway;

beforeAll(async () => {
  ({ redis, gw } = await startWriterReaderGateway(PREFIX, WRITER, READER));
});
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

interface Reply {
  status: number;
  body: unknown;
  type: string | null;
  /** Express adds an ETag to JSON bodies; the fast door does not (nothing caches a POST's response). */
  etag?: boolean;
}

/** `fast` sends the plain request the fast door takes; otherwise a content-type parameter sends it to express. */
async function post(path: string, raw: string, options: { fast: boolean; token?: string }): Promise<Reply> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.token ?? WRITER}`,
      'content-type': options.fast ? 'application/json' : 'application/json; profile=express',
    },
    body: raw,
  });
  const text = await res.text();
  const reply: Reply = {
    status: res.status,
    body: text === '' ? null : (JSON.parse(text) as unknown),
    type: res.headers.get('content-type'),
  };
  if (res.headers.has('etag')) reply.etag = true;
  return reply;
}

async function ask(body: Record<string, unknown>): Promise<string> {
  const res = await post('/api/interactions', JSON.stringify(body), { fast: false });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

async function read(id: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${gw.url}/api/interactions/${id}`, { headers: { authorization: `Bearer ${WRITER}` } });
  return (await res.json()) as Record<string, unknown>;
}

const SELECT = {
  question: 'Which one?',
  answer_format: 'select',
  choices: ['alpha', 'beta', 'ünïcode ✓'],
  timeout: 3600,
};
const CONFIRM = { question: 'Go?', answer_format: 'confirm', timeout: 3600 };
const TEXT = { question: 'Why?', answer_format: 'text', timeout: 3600 };
const FORM = {
  question: 'Who?',
  answer_format: 'form',
  timeout: 3600,
  schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 2 } } },
};
const ASTRAL = '😀'.repeat(9_000); // 18,000 UTF-16 units, 9,000 characters: within the text limit

/** Each case: the ask, the raw body answered with, and what both doors must say. */
const CASES: Array<{ name: string; ask: Record<string, unknown>; raw: string; status: number }> = [
  { name: 'a select choice', ask: SELECT, raw: '{"answer":"beta"}', status: 200 },
  { name: 'a non-ASCII select choice', ask: SELECT, raw: JSON.stringify({ answer: 'ünïcode ✓' }), status: 200 },
  { name: 'a select answer outside the choices', ask: SELECT, raw: '{"answer":"omega"}', status: 400 },
  { name: 'a select answer that is not a string', ask: SELECT, raw: '{"answer":2}', status: 400 },
  { name: 'a lone surrogate for a select', ask: SELECT, raw: '{"answer":"\\ud800"}', status: 400 },
  { name: 'a confirm boolean', ask: CONFIRM, raw: '{"answer":false}', status: 200 },
  { name: 'a confirm string', ask: CONFIRM, raw: '{"answer":"yes"}', status: 400 },
  { name: 'a text answer', ask: TEXT, raw: '{"answer":"because"}', status: 200 },
  { name: 'an empty text answer', ask: TEXT, raw: '{"answer":""}', status: 400 },
  {
    name: 'a text answer one character too long',
    ask: TEXT,
    raw: JSON.stringify({ answer: 'x'.repeat(16_385) }),
    status: 400,
  },
  {
    name: 'a long text of astral characters within the limit',
    ask: TEXT,
    raw: JSON.stringify({ answer: ASTRAL }),
    status: 200,
  },
  { name: 'a valid form', ask: FORM, raw: '{"answer":{"name":"Ada"}}', status: 200 },
  { name: 'an invalid form', ask: FORM, raw: '{"answer":{"name":"A"}}', status: 400 },
  { name: 'a body without an answer', ask: SELECT, raw: '{"choice":"beta"}', status: 400 },
  { name: 'an extra member', ask: SELECT, raw: '{"answer":"beta","note":1}', status: 400 },
  { name: 'a JSON null body', ask: SELECT, raw: 'null', status: 400 },
  { name: 'a body that is not JSON', ask: SELECT, raw: '{"answer":', status: 400 },
  { name: 'a body with a byte-order mark', ask: CONFIRM, raw: '\ufeff{"answer":true}', status: 200 },
];

describe('the answer door on Redis: fast path and express path agree', () => {
  for (const c of CASES) {
    it(`answers ${c.name} the same way on both paths`, async () => {
      const replies: Reply[] = [];
      const records: Array<Record<string, unknown>> = [];
      for (const fast of [true, false]) {
        const id = await ask(c.ask);
        replies.push(await post(`/api/interactions/${id}/answer`, c.raw, { fast }));
        records.push(await read(id));
      }
      const [viaFast, viaExpress] = replies as [Reply, Reply];
      expect(viaFast.status).toBe(c.status);
      // Which door served it: the fast one writes no ETag.
      expect(viaFast.etag).toBeUndefined();
      expect(viaExpress.etag).toBe(true);
      expect({ ...viaFast, etag: true }).toEqual(viaExpress);
      const [a, b] = records as [Record<string, unknown>, Record<string, unknown>];
      expect(a['status']).toBe(b['status']);
      expect((a['result'] as { answer?: unknown } | null)?.answer).toEqual(
        (b['result'] as { answer?: unknown } | null)?.answer,
      );
      if (c.status === 200) expect(a['status']).toBe('answered');
      else expect(a['status']).toBe('pending'); // a refused answer writes nothing
    });
  }

  it('reports already_answered, not_found and gone the same way on both paths', async () => {
    for (const fast of [true, false]) {
      const id = await ask(SELECT);
      expect(await post(`/api/interactions/${id}/answer`, '{"answer":"alpha"}', { fast })).toMatchObject({
        status: 200,
        body: { status: 'answered' },
      });
      expect(await post(`/api/interactions/${id}/answer`, '{"answer":"omega"}', { fast })).toMatchObject({
        status: 200,
        body: { status: 'already_answered' },
      });
      expect((await read(id))['result']).toMatchObject({ answer: 'alpha' });
    }
    const missing = await Promise.all(
      [true, false].map((fast) => post('/api/interactions/AAAAAAAAAAAAAAAA/answer', '{"answer":"alpha"}', { fast })),
    );
    expect(missing[0]?.status).toBe(404);
    expect({ ...missing[0], etag: true }).toEqual(missing[1]);
    const cancelled: Reply[] = [];
    for (const fast of [true, false]) {
      const id = await ask(SELECT);
      const res = await fetch(`${gw.url}/api/interactions/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${WRITER}` },
      });
      expect(res.status).toBe(200);
      const reply = await post(`/api/interactions/${id}/answer`, '{"answer":"alpha"}', { fast });
      cancelled.push({ ...reply, body: JSON.parse(JSON.stringify(reply.body).replaceAll(id, '<id>')) as unknown });
    }
    expect(cancelled[0]?.status).toBe(410);
    expect({ ...cancelled[0], etag: true }).toEqual(cancelled[1]);
  });

  it('expires an ask whose deadline passed instead of claiming it, on both paths', async () => {
    const ids = [await ask({ ...CONFIRM, timeout: 1 }), await ask({ ...CONFIRM, timeout: 1 })];
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const replies = [
      await post(`/api/interactions/${ids[0] as string}/answer`, '{"answer":true}', { fast: true }),
      await post(`/api/interactions/${ids[1] as string}/answer`, '{"answer":true}', { fast: false }),
    ];
    for (const [i, reply] of replies.entries()) {
      expect(reply.status, i === 0 ? 'fast' : 'express').toBe(410);
      expect(reply.body).toMatchObject({ error: 'gone' });
      expect((await read(ids[i] as string))['status'], i === 0 ? 'fast' : 'express').toBe('expired');
    }
    // Which door served each: the fast one writes no ETag.
    expect(replies[0]?.etag).toBeUndefined();
    expect(replies[1]?.etag).toBe(true);
  });

  it('leaves an unknown token and a token without the answer scope to the express door (401, 403)', async () => {
    const id = await ask(SELECT);
    const unknown = await post(`/api/interactions/${id}/answer`, '{"answer":"beta"}', {
      fast: true,
      token: 'not-a-known-token-at-all-0000',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'unauthorized' });
    const reader = await post(`/api/interactions/${id}/answer`, '{"answer":"beta"}', { fast: true, token: READER });
    expect(reader.status).toBe(403);
    expect(reader.body).toMatchObject({ error: 'forbidden' });
    expect((await read(id))['status']).toBe('pending');
  });

  it('lets exactly one of many racing answers win', async () => {
    const id = await ask(SELECT);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(`/api/interactions/${id}/answer`, JSON.stringify({ answer: i % 2 === 0 ? 'alpha' : 'beta' }), {
          fast: i % 3 !== 0,
        }),
      ),
    );
    expect(replies.filter((r) => (r.body as { status?: string }).status === 'answered')).toHaveLength(1);
    expect(replies.filter((r) => (r.body as { status?: string }).status === 'already_answered')).toHaveLength(19);
  });
});

describe('a handler run resumed straight from the claim', () => {
  it('runs the continuation once, with no resume job, and a later resume job (the sweep) hands on nothing new', async () => {
    const seen: Continuation[] = [];
    const worker = await startWorker({
      url: gw.url,
      token: WRITER,
      handlers: { direct: (c) => void seen.push(c) },
    });
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const resumeQueue = new Queue('resume', { connection, prefix: QUEUE_PREFIX });
    // The writer identity's queue of handler "direct" (one queue per identity: src/queue/queues.ts).
    const handlerQueue = new Queue(`handler-direct~${Buffer.from('writer').toString('base64url')}`, {
      connection,
      prefix: QUEUE_PREFIX,
    });
    try {
      const runId = 'run-direct';
      const id = await ask({
        question: 'Resume?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: new Date(Date.now() + 3_600_000).toISOString(),
        run: { run_id: runId, resume: { handler: 'direct' }, state: { step: 1 } },
      });
      expect(await post(`/api/interactions/${id}/answer`, '{"answer":true}', { fast: true })).toMatchObject({
        status: 200,
        body: { status: 'answered' },
      });
      const jobId = resumeJobId(runId, 1);
      await until(async () => (await handlerQueue.getJobState(jobId)) === 'completed');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        type: 'run.resumed',
        run_id: runId,
        interaction_id: id,
        ask_result: { answer: true },
        state: { step: 1 },
        attempt: 1,
        resume_id: jobId,
      });
      // One hop: the askgate worker's resume queue never saw this park.
      expect(await resumeQueue.getJobState(jobId)).toBe('unknown');
      const run = await fetch(`${gw.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${WRITER}` } });
      expect(await run.json()).toMatchObject({ status: 'resumed', resume_attempts: 1 });

      // What the straggler sweep (or another gateway) would add: it completes and runs nothing again.
      await resumeQueue.add('resume', { runId, generation: 1 }, { jobId });
      await until(async () => (await resumeQueue.getJobState(jobId)) === 'completed');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toHaveLength(1);
    } finally {
      await resumeQueue.close();
      await handlerQueue.close();
      connection.disconnect();
      await worker.close();
    }
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
