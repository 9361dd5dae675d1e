import { describe, expect, it } from 'vitest';
import { MalformedWebhook, json, type VerifyInput, type WebhookRequest } from '../../channels/http.js';
import { runPipeline, webhookRoutes, type WebhookSpec } from '../../channels/pipeline.js';

/** The shared pipeline alone, with a first-seen set of its own: the order of its steps and its status codes. */
const request = (body: string, url = '/hook'): WebhookRequest => ({
  method: 'POST',
  path: '/hook',
  query: {},
  headers: { 'x-sig': 'good' },
  rawBody: Buffer.from(body),
  url,
});

function world(over: Partial<WebhookSpec<{ id: string }>> = {}) {
  const seen = new Set<string>();
  const calls = { parse: 0, dispatch: [] as string[], verify: [] as VerifyInput[] };
  const spec: WebhookSpec<{ id: string }> = {
    channel: 'demo',
    path: '/hook',
    secret: 's',
    verify: (input) => {
      calls.verify.push(input);
      return input.headers['x-sig'] === 'good' ? { ok: true } : { ok: false, reason: 'the X-Sig header is wrong' };
    },
    parse: (raw) => {
      calls.parse += 1;
      const text = raw.toString('utf8');
      if (text === '') throw new MalformedWebhook('the body is empty');
      return text.split(',').map((id) => ({ id }));
    },
    dedupeKey: (e) => `demo:${e.id}`,
    dispatch: async (e) => {
      calls.dispatch.push(e.id);
      return undefined;
    },
    ...over,
  };
  const seenSet = {
    firstSeen: async (key: string): Promise<boolean> => {
      const first = !seen.has(key);
      seen.add(key);
      return first;
    },
    forgetSeen: async (key: string): Promise<void> => {
      seen.delete(key);
    },
  };
  return { spec, calls, run: (req: WebhookRequest) => runPipeline(spec, seenSet, req), seenSet };
}

describe('the channel webhook pipeline', () => {
  it('answers 401 for a refused signature before a byte is parsed, naming the reason', async () => {
    const w = world();
    const res = await w.run({ ...request('a'), headers: { 'x-sig': 'bad' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'unauthorized',
      message: 'the demo request was refused: the X-Sig header is wrong.',
    });
    expect(w.calls.parse).toBe(0);
    expect(w.calls.dispatch).toEqual([]);
  });

  it('answers 400 for a verified body that is not the platform’s, naming the body', async () => {
    const w = world();
    const res = await w.run(request(''));
    expect(res).toEqual(
      json(400, { error: 'invalid_request', message: 'not a demo webhook: the body is empty.', field: 'body' }),
    );
    expect(w.calls.dispatch).toEqual([]);
  });

  it('dispatches each new event once: a redelivery answers `duplicate`, a batch dispatches only the unseen', async () => {
    const w = world({ duplicate: { status: 200, body: { ok: true, duplicate: true } } });
    expect(await w.run(request('a'))).toEqual({ status: 200, body: { ok: true } });
    expect(await w.run(request('a'))).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(await w.run(request('a,b'))).toEqual({ status: 200, body: { ok: true } });
    expect(w.calls.dispatch).toEqual(['a', 'b']);
  });

  it('hands a failed dispatch its claim back, so the platform retry of that event is handled, not dropped', async () => {
    let fail = true;
    const handled: string[] = [];
    const w = world({
      dispatch: async (e) => {
        if (fail) throw new Error('the store did not answer');
        handled.push(e.id);
        return undefined;
      },
    });
    await expect(w.run(request('a'))).rejects.toThrow(/the store did not answer/);
    fail = false;
    expect(await w.run(request('a'))).toEqual({ status: 200, body: { ok: true } });
    expect(handled).toEqual(['a']);
    // Once handled, a further copy is a duplicate again.
    await w.run(request('a'));
    expect(handled).toEqual(['a']);
  });

  it("answers with the dispatch's own response when it gives one, and `ok` otherwise", async () => {
    const w = world({
      dispatch: async (e) => (e.id === 'c' ? json(200, { challenge: 'c' }) : undefined),
      ok: { status: 204 },
    });
    expect(await w.run(request('c'))).toEqual(json(200, { challenge: 'c' }));
    expect(await w.run(request('d'))).toEqual({ status: 204 });
  });

  it('hands verify the public URL when one is configured, and now', async () => {
    const w = world({ publicBaseUrl: 'https://askgate.example.com', now: () => 42_000 });
    await w.run(request('a', '/hook?x=1'));
    expect(w.calls.verify[0]).toMatchObject({
      secret: 's',
      url: 'https://askgate.example.com/hook?x=1',
      now: 42_000,
    });
  });

  it('quick ack: a dispatch slower than the window is acknowledged for, and still finishes', async () => {
    // Order, not a stopwatch: the dispatch cannot finish before the test lets it, so an answer before that is the ack.
    let late = 0;
    let finished = false;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let markDone: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      markDone = r;
    });
    const w = world({
      dedupeKey: () => null,
      dispatch: async () => {
        await gate;
        finished = true;
        markDone();
        return json(200, { too: 'late' });
      },
      ack: { withinMs: 50, response: { status: 200 }, onLate: () => (late += 1) },
    });
    expect(await w.run(request('a'))).toEqual({ status: 200 });
    expect(late).toBe(1);
    expect(finished).toBe(false);
    release();
    await done;
    expect(finished).toBe(true);
  });

  it('quick ack: a dispatch inside the window answers itself', async () => {
    const w = world({
      dedupeKey: () => null,
      dispatch: async () => json(200, { in: 'time' }),
      ack: { withinMs: 1000, response: { status: 200 } },
    });
    expect(await w.run(request('a'))).toEqual(json(200, { in: 'time' }));
  });

  it('awaits an asynchronous verify before parsing: nothing is read until its verdict comes', async () => {
    let settle: (ok: boolean) => void = () => undefined;
    const w = world({
      verify: () =>
        new Promise((resolve) => {
          settle = (ok) => resolve(ok ? { ok: true } : { ok: false, reason: 'the key id is unknown' });
        }),
    });
    const refusedRun = w.run(request('a'));
    await Promise.resolve();
    expect(w.calls.parse).toBe(0);
    settle(false);
    expect(await refusedRun).toEqual(
      json(401, { error: 'unauthorized', message: 'the demo request was refused: the key id is unknown.' }),
    );
    expect(w.calls.parse).toBe(0);
    const acceptedRun = w.run(request('b'));
    await Promise.resolve();
    expect(w.calls.dispatch).toEqual([]);
    settle(true);
    expect(await acceptedRun).toEqual({ status: 200, body: { ok: true } });
    expect(w.calls.dispatch).toEqual(['b']);
  });

  it('answers 500 verifier_unavailable when verify rejects (keys it cannot fetch), and parses nothing', async () => {
    const told: unknown[] = [];
    const w = world({
      verify: async () => {
        throw new Error('GET https://keys.example.com/jwks failed: ECONNREFUSED');
      },
      onVerifyError: (err) => told.push(err),
    });
    expect(await w.run(request('a'))).toEqual(
      json(500, {
        error: 'verifier_unavailable',
        message: 'the demo request could not be verified right now; nothing was changed, retry later.',
      }),
    );
    expect(w.calls.parse).toBe(0);
    expect(w.calls.dispatch).toEqual([]);
    expect(told.map((e) => (e as Error).message)).toEqual(['GET https://keys.example.com/jwks failed: ECONNREFUSED']);
  });

  it('declares a POST route, and a GET handshake on the same path when the channel has one', async () => {
    const w = world();
    expect(webhookRoutes(w.spec, w.seenSet).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /hook']);
    const routes = webhookRoutes(
      { ...w.spec, handshake: (req) => json(200, { q: req.query['hub.challenge'] }) },
      w.seenSet,
    );
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /hook', 'GET /hook']);
    const get = routes[1];
    expect(await get?.handle({ ...request(''), method: 'GET', query: { 'hub.challenge': '7' } })).toEqual(
      json(200, { q: '7' }),
    );
    expect(w.calls.verify).toEqual([]);
  });
});
