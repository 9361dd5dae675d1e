import {
  MalformedWebhook,
  json,
  type Verify,
  type VerifyResult,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookRoute,
} from './http.js';

/**
 * The one webhook pipeline every channel runs: verify → parse → dedupe → dispatch. A channel supplies its pure
 * `verify` and `parse`, the key that names a platform retry, and what to do with each event; the pipeline owns the
 * order and the status codes:
 * - 401 when `verify` refuses, before a byte of the body is parsed (an asynchronous verify is awaited first);
 * - 500 `verifier_unavailable` when `verify` cannot run (it threw or rejected: keys it could not fetch);
 * - 400 when the body verified but `parse` throws MalformedWebhook;
 * - otherwise the response of the last dispatched event that returned one, `duplicate` when every event was a
 *   retry already seen, and `ok` when nothing answered.
 */
export interface WebhookSpec<Event> {
  /** The channel's name, for messages. */
  channel: string;
  path: string;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** The channel's secret and its verify function (channels/<name>/verify.ts): pure, or asynchronous (fetched keys). */
  secret: string;
  verify: Verify;
  /** Told when `verify` threw or rejected (for a log line; the request is answered 500 and changes nothing). */
  onVerifyError?: (err: unknown) => void;
  /**
   * The public origin the platform calls (INTERACTIONS_PUBLIC_BASE_URL), for a signature that covers the URL; the
   * verify input's `url` is that origin plus the request's path and query. Null: the path and query alone.
   */
  publicBaseUrl?: string | null;
  /** Now in milliseconds (the staleness rule of a signature). Default the clock. */
  now?: () => number;
  /** The events in a verified body (most platforms send one). Throws MalformedWebhook for a body that is not one. */
  parse(rawBody: Buffer, request: WebhookRequest): readonly Event[];
  /** The key a platform's redelivery of this event repeats (`core.firstSeen`); null: not de-duplicated. */
  dedupeKey(event: Event): string | null;
  /** Acts on one event; may return the HTTP response (e.g. a challenge echo, a TwiML reply). */
  dispatch(event: Event, request: WebhookRequest): Promise<WebhookResponse | undefined>;
  /** The answer when no dispatch returned one. Default 200 `{"ok": true}`. */
  ok?: WebhookResponse;
  /** The answer when every event was a retry already seen. Default `ok`. */
  duplicate?: WebhookResponse;
  /**
   * Quick acknowledgement (Slack's 3-second rule): when the dispatch has not answered after `withinMs`, the
   * pipeline answers `response` and lets the dispatch finish on its own; `onLate` is told (for a log line).
   */
  ack?: { withinMs: number; response: WebhookResponse; onLate?: () => void; onError?: (err: unknown) => void };
  /**
   * A GET handshake on the same path (Meta's subscription check): answered by this function alone, with no body to
   * verify. Absent: the path serves POST only.
   */
  handshake?(request: WebhookRequest): WebhookResponse;
}

/**
 * The platform retries already taken (ChannelCore's `firstSeen` / `forgetSeen`): a key is claimed before its event is
 * dispatched, and given back when the dispatch fails, so the platform's retry of a failed delivery is handled again
 * rather than dropped as a duplicate.
 */
export interface SeenSet {
  /** True the first time `key` is seen (the claim); false while an earlier claim holds. */
  firstSeen(key: string): Promise<boolean>;
  /** Gives a claim back. */
  forgetSeen(key: string): Promise<void>;
}

const DEFAULT_OK: WebhookResponse = { status: 200, body: { ok: true } };

/** The routes of one webhook: its POST door through the pipeline, and its GET handshake when it has one. */
export function webhookRoutes<Event>(spec: WebhookSpec<Event>, seen: SeenSet): WebhookRoute[] {
  const routes: WebhookRoute[] = [
    {
      method: 'POST',
      path: spec.path,
      ...(spec.maxBodyBytes === undefined ? {} : { maxBodyBytes: spec.maxBodyBytes }),
      handle: (request) => runPipeline(spec, seen, request),
    },
  ];
  const handshake = spec.handshake;
  if (handshake !== undefined)
    routes.push({ method: 'GET', path: spec.path, handle: (request) => Promise.resolve(handshake(request)) });
  return routes;
}

/** One request through verify → parse → dedupe → dispatch. Exported for tests; the gateway uses webhookRoutes. */
export async function runPipeline<Event>(
  spec: WebhookSpec<Event>,
  seen: SeenSet,
  request: WebhookRequest,
): Promise<WebhookResponse> {
  let verdict: VerifyResult;
  try {
    // Awaited whether it is a plain verdict or a promise of one (keys fetched): nothing below runs before it.
    verdict = await spec.verify({
      secret: spec.secret,
      rawBody: request.rawBody,
      headers: request.headers,
      url: `${spec.publicBaseUrl ?? ''}${request.url}`,
      now: spec.now?.() ?? Date.now(),
    });
  } catch (err) {
    spec.onVerifyError?.(err);
    // Not the error's own words: they may name a key server or carry what the platform sent.
    return json(500, {
      error: 'verifier_unavailable',
      message: `the ${spec.channel} request could not be verified right now; nothing was changed, retry later.`,
    });
  }
  if (!verdict.ok)
    return json(401, {
      error: 'unauthorized',
      message: `the ${spec.channel} request was refused: ${verdict.reason}.`,
    });
  let events: readonly Event[];
  try {
    events = spec.parse(request.rawBody, request);
  } catch (err) {
    if (!(err instanceof MalformedWebhook)) throw err;
    return json(400, {
      error: 'invalid_request',
      message: `not a ${spec.channel} webhook: ${err.message}.`,
      field: 'body',
    });
  }
  const work = dispatchAll(spec, seen, events, request);
  if (spec.ack === undefined) return work;
  return acknowledged(work, spec.ack);
}

async function dispatchAll<Event>(
  spec: WebhookSpec<Event>,
  seen: SeenSet,
  events: readonly Event[],
  request: WebhookRequest,
): Promise<WebhookResponse> {
  let answer: WebhookResponse | undefined;
  let duplicates = 0;
  for (const event of events) {
    const key = spec.dedupeKey(event);
    // A platform redelivers what it thinks was not received; the second copy must change nothing.
    if (key !== null && !(await seen.firstSeen(key))) {
      duplicates += 1;
      continue;
    }
    try {
      answer = (await spec.dispatch(event, request)) ?? answer;
    } catch (err) {
      // The platform will retry an event whose delivery failed (a 5xx): that retry must be handled, not skipped.
      if (key !== null) await seen.forgetSeen(key).catch(() => undefined);
      throw err;
    }
  }
  const ok = spec.ok ?? DEFAULT_OK;
  if (answer !== undefined) return answer;
  return events.length > 0 && duplicates === events.length ? (spec.duplicate ?? ok) : ok;
}

/** The dispatch's own answer if it comes within the window, else the quick acknowledgement (the work goes on). */
function acknowledged(
  work: Promise<WebhookResponse>,
  ack: NonNullable<WebhookSpec<unknown>['ack']>,
): Promise<WebhookResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const timer = setTimeout(() => {
      answered = true;
      ack.onLate?.();
      resolve(ack.response);
    }, ack.withinMs);
    timer.unref();
    work.then(
      (response) => {
        clearTimeout(timer);
        if (!answered) resolve(response);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!answered) reject(err);
        else ack.onError?.(err);
      },
    );
  });
}
