import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AskCancelledError,
  AskgateClient,
  AskgateHttpError,
  AskgateNetworkError,
  AskTimeoutError,
  type InteractionRecord,
  type TailEvent,
} from 'askgate-sdk';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The SDK against a real in-process gateway (in-memory store): every call crosses real HTTP. */

let gw: TestGateway;
let asker: AskgateClient;
let answerer: AskgateClient;

beforeAll(async () => {
  gw = await startTestGateway();
  asker = new AskgateClient({ url: gw.url, token: gw.token });
  // A second client plays the person answering from elsewhere.
  answerer = new AskgateClient({ url: gw.url, token: gw.token });
});

afterAll(async () => {
  await gw?.close();
});

/** Resolves with the record the moment `ask` has created it. */
function created(): { onCreated: (r: InteractionRecord) => void; record: Promise<InteractionRecord> } {
  let resolve: (r: InteractionRecord) => void = () => undefined;
  const record = new Promise<InteractionRecord>((r) => {
    resolve = r;
  });
  return { onCreated: resolve, record };
}

describe('ask', () => {
  it('blocks until another client answers, then returns {answer, reply_to, params}', async () => {
    const seen = created();
    const asking = asker.ask(
      { question: 'Ship it?', answer_format: 'confirm', timeout: 30 },
      { onCreated: seen.onCreated },
    );
    const record = await seen.record;
    expect(record.status).toBe('pending');
    // Still blocked after a moment: nobody answered yet.
    const early = await Promise.race([
      asking.then(() => 'resolved'),
      new Promise((r) => setTimeout(() => r('blocked'), 300)),
    ]);
    expect(early).toBe('blocked');
    expect(await answerer.answer(record.id, true)).toBe('answered');
    const result = await asking;
    expect(result).toEqual({ answer: true, reply_to: null, params: null });
    // The later answer changes nothing.
    expect(await answerer.answer(record.id, false)).toBe('already_answered');
    expect((await asker.get(record.id)).result?.answer).toBe(true);
  });

  it('returns a select answer typed as one of the choices', async () => {
    const seen = created();
    const asking = asker.ask(
      { question: 'Region?', answer_format: 'select', choices: ['eu', 'us'], timeout: 30 },
      { onCreated: seen.onCreated },
    );
    await answerer.answer((await seen.record).id, 'eu');
    const { answer } = await asking;
    const region: 'eu' | 'us' = answer;
    expect(region).toBe('eu');
  });

  it('throws AskTimeoutError past the deadline, and the record is expired', async () => {
    const seen = created();
    const started = Date.now();
    const error = await asker
      .ask({ question: 'Too slow?', answer_format: 'text', timeout: 1 }, { onCreated: seen.onCreated })
      .catch((e: unknown) => e);
    const record = await seen.record;
    expect(error).toBeInstanceOf(AskTimeoutError);
    const timeout = error as AskTimeoutError;
    expect(timeout.interactionId).toBe(record.id);
    expect(timeout.deadlineAt).toBe(record.deadline_at);
    expect(Date.now() - started).toBeLessThan(8000);
    expect((await asker.get(record.id)).status).toBe('expired');
  });

  it('throws AskCancelledError when the asker cancels', async () => {
    const seen = created();
    const asking = asker
      .ask({ question: 'Cancel me?', answer_format: 'confirm', timeout: 30 }, { onCreated: seen.onCreated })
      .catch((e: unknown) => e);
    const record = await seen.record;
    const cancelled = await asker.cancel(record.id);
    expect(cancelled?.status).toBe('cancelled');
    const error = await asking;
    expect(error).toBeInstanceOf(AskCancelledError);
    expect((error as AskCancelledError).interactionId).toBe(record.id);
  });

  it('stops waiting when its signal aborts, with the signal reason', async () => {
    const abort = new AbortController();
    const seen = created();
    const asking = asker
      .ask(
        { question: 'Abort me?', answer_format: 'confirm', timeout: 30 },
        { onCreated: seen.onCreated, signal: abort.signal },
      )
      .catch((e: unknown) => e);
    await seen.record;
    const reason = new Error('caller gave up');
    abort.abort(reason);
    expect(await asking).toBe(reason);
  });

  it('wait(id) blocks on an interaction made by create()', async () => {
    const record = await asker.create({ question: 'Later?', answer_format: 'text', timeout: 30 });
    const waiting = asker.wait<string>(record.id);
    await answerer.answer(record.id, 'now');
    expect((await waiting).answer).toBe('now');
  });

  it('result(id, 0) returns the pending record at once', async () => {
    const record = await asker.create({ question: 'Pending?', answer_format: 'confirm', timeout: 30 });
    expect((await asker.result(record.id, 0)).status).toBe('pending');
  });
});

describe('list', () => {
  it('pages oldest first with next_cursor, filtered by group', async () => {
    const group = `g-${randomUUID()}`;
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push((await asker.create({ question: `Q${n}`, answer_format: 'confirm', group_id: group, timeout: 60 })).id);
    const first = await asker.list({ groupId: group, limit: 2 });
    expect(first.items.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(first.next_cursor).not.toBeNull();
    const second = await asker.list({ groupId: group, limit: 2, cursor: first.next_cursor as string });
    expect(second.items.map((r) => r.id)).toEqual(ids.slice(2));
    expect(second.next_cursor).toBeNull();
  });
});

describe('tail', () => {
  it('receives created and answered events from the moment of connecting', async () => {
    const abort = new AbortController();
    const stream = asker.tail(abort.signal);
    await stream.opened;
    const record = await asker.create({ question: 'Tail me?', answer_format: 'confirm', timeout: 30 });
    const events: TailEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        if (event.record.id !== record.id) continue;
        events.push(event);
        if (event.type === 'interaction.answered') break;
      }
    })();
    await answerer.answer(record.id, true);
    await reading;
    expect(events.map((e) => e.type)).toEqual(['interaction.created', 'interaction.answered']);
    expect(events[1]?.record.result?.answer).toBe(true);
    abort.abort();
  });

  it('ends quietly when its signal aborts', async () => {
    const abort = new AbortController();
    const stream = asker.tail(abort.signal);
    await stream.opened;
    setTimeout(() => abort.abort(), 100);
    const seen: TailEvent[] = [];
    for await (const event of stream) seen.push(event);
    // Reaching here at all is the point: the loop ended without throwing. Nothing else asks meanwhile.
    expect(seen).toEqual([]);
  });
});

describe('errors', () => {
  it('maps a 400 to AskgateHttpError with code, message and field', async () => {
    // A select without choices: the gateway names the missing field.
    const error = await asker.create({ question: 'Pick', answer_format: 'select' } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AskgateHttpError);
    const http = error as AskgateHttpError;
    expect(http.status).toBe(400);
    expect(http.code).toBe('invalid_request');
    expect(http.field).toBe('choices');
    expect(http.message).toMatch(/choices/);
    expect(http.request).toBe('POST /api/interactions');
  });

  it('maps a refused answer to 400 invalid_answer with the schema path, leaving the ask pending', async () => {
    const record = await asker.create({
      question: 'How many?',
      answer_format: 'form',
      schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      timeout: 30,
    });
    const error = (await answerer.answer(record.id, { count: 'three' }).catch((e: unknown) => e)) as AskgateHttpError;
    expect(error).toBeInstanceOf(AskgateHttpError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_answer');
    expect(error.field).toMatch(/count/);
    expect(error.message).toMatch(/^answer does not match schema at /);
    expect((await asker.get(record.id)).status).toBe('pending');
  });

  it('maps 404, 410 and 409', async () => {
    const missing = (await asker.get('no-such-id').catch((e: unknown) => e)) as AskgateHttpError;
    expect(missing.status).toBe(404);
    const record = await asker.create({ question: 'Gone?', answer_format: 'confirm', timeout: 30 });
    await asker.cancel(record.id);
    const gone = (await answerer.answer(record.id, true).catch((e: unknown) => e)) as AskgateHttpError;
    expect(gone.status).toBe(410);
    // An async park on the in-memory store is refused loudly.
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const park = (await asker
      .ask({
        question: 'Park?',
        answer_format: 'confirm',
        mode: 'async',
        expiry_at: expiry,
        run: { run_id: randomUUID(), resume: { handler: 'h' } },
      })
      .catch((e: unknown) => e)) as AskgateHttpError;
    expect(park).toBeInstanceOf(AskgateHttpError);
    expect(park.status).toBe(409);
  });

  it('never puts the token in an error or in the client', async () => {
    const secret = `tok_${randomUUID().replace(/-/g, '')}`;
    const wrong = new AskgateClient({ url: gw.url, token: secret });
    const unauthorized = (await wrong.list().catch((e: unknown) => e)) as AskgateHttpError;
    expect(unauthorized.status).toBe(401);
    const offline = new AskgateClient({ url: 'http://127.0.0.1:1', token: secret });
    const network = (await offline.get('x').catch((e: unknown) => e)) as AskgateNetworkError;
    expect(network).toBeInstanceOf(AskgateNetworkError);
    expect(network.message).toMatch(/could not reach the gateway at http:\/\/127\.0\.0\.1:1/);
    for (const shown of [
      inspect(unauthorized, { depth: 5 }),
      inspect(network, { depth: 5 }),
      inspect(wrong, { depth: 5 }),
      JSON.stringify(wrong),
    ]) {
      expect(shown).not.toContain(secret);
    }
  });

  it('refuses bad options at construction with the fix', () => {
    expect(() => new AskgateClient({ url: 'not a url', token: 't' })).toThrow(/e\.g\. http:\/\/127\.0\.0\.1:8080/);
    expect(() => new AskgateClient({ url: gw.url, token: '' })).toThrow(/ASKGATE_TOKENS/);
    expect(() => new AskgateClient({ url: gw.url, token: 't', maxWaitSeconds: 61 })).toThrow(/1\.\.60/);
  });
});
