import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { startWriterReaderGateway } from '../helpers/redis-gateway.js';
import type { RedisServerHandle } from '../helpers/redis-server.js';

/**
 * The ask door served ahead of express (src/doors/ask-fast.ts through src/doors/fast-door.ts): every ask and every
 * refusal must read exactly as the express route's. The fast door writes no ETag, which tells the two apart.
 */

const WRITER = 'ask-fast-writer-token-0123456789ab';
const READER = 'ask-fast-reader-token-0123456789ab';
const PREFIX = `{askfast${Date.now()}}:`;

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
  etag: boolean;
}

/** `fast` sends the plain request the fast door takes; otherwise a content-type parameter sends it to express. */
async function postAsk(raw: string, fast: boolean, token = WRITER): Promise<Reply> {
  const res = await fetch(`${gw.url}/api/interactions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': fast ? 'application/json' : 'application/json; profile=express',
    },
    body: raw,
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text === '' ? null : (JSON.parse(text) as unknown),
    type: res.headers.get('content-type'),
    etag: res.headers.has('etag'),
  };
}

/** What differs between two asks of the same body: their ids and the times they were made at. */
function comparable(body: unknown): unknown {
  if (body === null || typeof body !== 'object') return body;
  const { id: _id, created_at: _c, deadline_at: _d, ...rest } = body as Record<string, unknown>;
  return rest;
}

const EXPIRY = new Date(Date.now() + 3_600_000).toISOString();
const CASES: Array<{ name: string; raw: string; status: number }> = [
  {
    name: 'a sync select',
    raw: JSON.stringify({ question: 'Which?', answer_format: 'select', choices: ['a', 'b'] }),
    status: 201,
  },
  {
    name: 'a sync text with a group',
    raw: JSON.stringify({ question: 'Why?', answer_format: 'text', group_id: 'g1', timeout: 60 }),
    status: 201,
  },
  { name: 'an async park with a handler', raw: 'PARK', status: 201 },
  { name: 'a body with a byte-order mark', raw: '\ufeff{"question":"Go?","answer_format":"confirm"}', status: 201 },
  { name: 'a missing question', raw: '{"answer_format":"confirm"}', status: 400 },
  { name: 'an unknown format', raw: '{"question":"Go?","answer_format":"dance"}', status: 400 },
  { name: 'an unknown member', raw: '{"question":"Go?","answer_format":"confirm","colour":"red"}', status: 400 },
  {
    name: 'an async ask without expiry_at',
    raw: '{"question":"Go?","answer_format":"confirm","mode":"async","run":{"run_id":"r-x","resume":{"handler":"h"}}}',
    status: 400,
  },
  { name: 'a JSON null body', raw: 'null', status: 400 },
  { name: 'a JSON array body', raw: '[]', status: 400 },
  { name: 'a body that is not JSON', raw: '{"question":', status: 400 },
];

describe('the ask door on Redis: fast path and express path agree', () => {
  for (const c of CASES) {
    it(`asks ${c.name} the same way on both paths`, async () => {
      const replies: Reply[] = [];
      for (const fast of [true, false]) {
        const raw =
          c.raw === 'PARK'
            ? JSON.stringify({
                question: 'Ship?',
                answer_format: 'confirm',
                mode: 'async',
                expiry_at: EXPIRY,
                run: { run_id: `run-${fast ? 'fast' : 'express'}`, resume: { handler: 'ship' }, state: { step: 1 } },
              })
            : c.raw;
        replies.push(await postAsk(raw, fast));
      }
      const [viaFast, viaExpress] = replies as [Reply, Reply];
      expect(viaFast.status).toBe(c.status);
      expect(viaFast.etag).toBe(false);
      expect(viaExpress.etag).toBe(true);
      const normalize = (r: Reply): unknown => ({
        status: r.status,
        type: r.type,
        body: JSON.parse(JSON.stringify(comparable(r.body)).replaceAll(/run-(fast|express)/g, 'run-<x>')),
      });
      expect(normalize(viaFast)).toEqual(normalize(viaExpress));
      if (c.status === 201) {
        // Both asks exist and read back as their doors reported them.
        for (const r of replies) {
          const id = (r.body as { id: string }).id;
          const res = await fetch(`${gw.url}/api/interactions/${id}`, {
            headers: { authorization: `Bearer ${WRITER}` },
          });
          expect(res.status).toBe(200);
          expect(((await res.json()) as { id: string }).id).toBe(id);
        }
      }
    });
  }

  it('leaves a token without the write scope to express, which refuses it with 403', async () => {
    const reply = await postAsk('{"question":"Go?","answer_format":"confirm"}', true, READER);
    expect(reply.status).toBe(403);
    expect(reply.etag).toBe(true);
  });
});
