import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (`new Response` refuses one for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The SDK's default `fetch`: the same contract for the requests the SDK sends (a string URL, a method, plain headers,
 * a string body, an abort signal), over `node:http(s)` with keep-alive agents of its own. Node's global `fetch`
 * (undici) spends several times the CPU of `node:http` on each small request — its web streams, request objects and
 * signals — and a continuation worker sends two requests per continuation, so on a busy worker that was the largest
 * cost of the process. A library would do it as well, but the SDK promises no runtime dependency; this is the small
 * part of `fetch` the SDK uses, and a caller can still pass any `fetch` of its own.
 *
 * Bodies are read whole before the promise resolves, except an event stream (`text/event-stream`), whose body is
 * handed over as it arrives. Aborting the signal destroys the request (and a streamed body) and rejects with the
 * signal's reason, as `fetch` does.
 */
let shared: typeof fetch | null = null;

/** One keep-alive `fetch` for every client and worker of the process that was not given its own. */
export function defaultFetch(): typeof fetch {
  shared ??= keepAliveFetch();
  return shared;
}

export function keepAliveFetch(): typeof fetch {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return ((input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
    const url = typeof input === 'string' ? new URL(input) : input;
    const secure = url.protocol === 'https:';
    const body = init.body ?? null;
    if (body !== null && typeof body !== 'string') return fetch(input, init);
    const signal = init.signal ?? null;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
      if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
      const send = secure ? httpsRequest : httpRequest;
      const req = send(url, { method: init.method ?? 'GET', headers, agent: secure ? agents.https : agents.http });
      const onAbort = (): void => {
        req.destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(new TypeError('fetch failed', { cause: error }));
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const responseHeaders = headersOf(res);
        const init = { status, statusText: res.statusMessage ?? '', headers: responseHeaders };
        if (/^text\/event-stream/i.test(responseHeaders.get('content-type') ?? '')) {
          // Streamed: an abort after the headers ends the body instead.
          signal?.removeEventListener('abort', onAbort);
          signal?.addEventListener('abort', () => res.destroy(), { once: true });
          resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, init));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
        res.on('end', () => {
          signal?.removeEventListener('abort', onAbort);
          const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          resolve(wholeResponse(NULL_BODY.has(status) ? null : bytes, init));
        });
      });
      req.end(body ?? undefined);
    });
  }) as typeof fetch;
}

/**
 * A response whose body was read whole: `text()`, `json()`, `arrayBuffer()` and `bytes()` give its bytes back as they
 * are, without the web stream `new Response` wraps around a body and reads them back through (most of what a small
 * response costs this process). Anything else that reads the body — `body`, `blob()`, `formData()`, `clone()` — is
 * served by a plain Response over the same bytes, made when first needed, so every method keeps fetch's meaning: a
 * body is read once (a second read rejects with a TypeError) and `bodyUsed` says whether it was. The methods are the
 * instance's own, over a Response made without a body (status, headers and the rest are that Response's).
 */
function wholeResponse(bytes: Buffer | null, init: ResponseInit): Response {
  const response = new Response(null, init);
  let used = false;
  let plain: Response | null = null;
  // The plain Response every other reader goes through, holding the body as it stands (after a read: spent).
  const asPlain = (): Response => {
    if (plain === null) {
      // A Buffer is a Uint8Array, which Response takes; the DOM typings only name ArrayBuffer-backed ones.
      plain = new Response(bytes as unknown as Uint8Array<ArrayBuffer> | null, init);
      if (used && bytes !== null) void plain.arrayBuffer();
    }
    return plain;
  };
  const take = (): Promise<Buffer> => {
    if (plain !== null) return plain.arrayBuffer().then((b) => Buffer.from(b));
    if (used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    used = true;
    return Promise.resolve(bytes ?? Buffer.alloc(0));
  };
  const text = (): Promise<string> => take().then((b) => b.toString('utf8'));
  const own = (value: unknown): PropertyDescriptor => ({ value, configurable: true, writable: true });
  Object.defineProperties(response, {
    body: { get: () => asPlain().body, configurable: true },
    bodyUsed: { get: () => (plain === null ? used : plain.bodyUsed), configurable: true },
    text: own(text),
    json: own(() => text().then((t) => JSON.parse(t) as unknown)),
    arrayBuffer: own(() => take().then((b) => new Uint8Array(b).buffer)),
    bytes: own(() => take().then((b) => new Uint8Array(b))),
    blob: own(() => asPlain().blob()),
    formData: own(() => asPlain().formData()),
    clone: own(() => asPlain().clone()),
  });
  return response;
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}
