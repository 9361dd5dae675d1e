import type { AuditEvent } from './wire/audit.js';
import type { InteractionRecord } from './wire/interactions.js';
import {
  AskgateHttpError,
  AskgateNetworkError,
  AskgateSdkError,
  AskTimeoutError,
  AskUndeliverableError,
} from './errors.js';
import { askExternal, type AskExternalOptions, type ExternalAnswer } from './external.js';
import { settle, sleep } from './settle.js';
import { TailStream } from './tail.js';
import { defaultFetch } from './node-fetch.js';
import { GatewayTransport, type RequestOptions } from './transport.js';
import type {
  AnswerStatus,
  AskAnswer,
  AskBody,
  AskOutcome,
  ExactAskBody,
  InteractionPage,
  ListOptions,
  PresetAskFields,
} from './types.js';

/** Options of `new AskgateClient(...)`. */
export interface AskgateClientOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept). Required. */
  url: string;
  /** A bearer token from `ASKGATE_TOKENS` (or the dev token `npm start` prints). Required; never echoed in errors. */
  token: string;
  /** The fetch to use, e.g. one with a proxy agent or a test double. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** The longest single `result?wait=` long-poll a blocking ask makes, in seconds (1..60). Default `60`. */
  maxWaitSeconds?: number;
  /**
   * How long past the deadline a blocking ask keeps waiting for the gateway to report the expiry before it gives
   * up with `AskTimeoutError` on its own. Default `5000` ms.
   */
  expiryGraceMs?: number;
}

/** Options of `ask` and `wait`. */
export interface AskOptions extends RequestOptions {
  /** Called once with the created record (its `id`, and `callback_url` when minted) before a sync ask blocks. Default: none. */
  onCreated?: (record: InteractionRecord) => void;
}

/** Statuses worth another long-poll while a caller waits: the gateway is restarting or a proxy hiccupped. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/**
 * A typed client of the askgate HTTP doors.
 *
 * ```ts
 * const askgate = new AskgateClient({ url: 'http://127.0.0.1:8080', token: process.env.ASKGATE_TOKEN! });
 * const { answer } = await askgate.ask({ question: 'Ship it?', answer_format: 'confirm', timeout: 600 });
 * if (answer) ship(); // answer: boolean
 * ```
 */
export class AskgateClient {
  /** The base URL, without a trailing slash. */
  readonly url: string;
  // A private field: util.inspect and JSON.stringify of the client never show it (it holds the token).
  readonly #http: GatewayTransport;
  readonly #maxWaitSeconds: number;
  readonly #expiryGraceMs: number;

  constructor(options: AskgateClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new AskgateSdkError(
        `url "${options.url}" is not a URL; pass the gateway's base URL, e.g. http://127.0.0.1:8080.`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new AskgateSdkError(`url "${options.url}" must be http:// or https://, e.g. http://127.0.0.1:8080.`);
    }
    if (typeof options.token !== 'string' || options.token.trim() === '') {
      throw new AskgateSdkError(
        'token is empty; pass a token from ASKGATE_TOKENS (or the dev token printed by `npm start`).',
      );
    }
    const maxWait = options.maxWaitSeconds ?? 60;
    if (!Number.isInteger(maxWait) || maxWait < 1 || maxWait > 60) {
      throw new AskgateSdkError(
        `maxWaitSeconds ${maxWait} is outside 1..60; the gateway holds a result request at most 60 s.`,
      );
    }
    this.url = options.url.replace(/\/+$/, '');
    this.#http = new GatewayTransport(this.url, options.token, options.fetch ?? defaultFetch());
    this.#maxWaitSeconds = maxWait;
    this.#expiryGraceMs = options.expiryGraceMs ?? 5000;
  }

  /**
   * Asks a person and, for a sync ask (the default), blocks until the answer, then returns `{answer, reply_to,
   * params}`; the answer is typed from the body (boolean for confirm, the choice union for select). Throws
   * `AskTimeoutError` when the deadline passes unanswered and `AskCancelledError` when the ask is cancelled. An
   * async ask (`mode: "async"`, or `to: "caller"`) returns `{suspended: true, interaction}` at once.
   */
  async ask<const B extends AskBody>(body: ExactAskBody<B>, options: AskOptions = {}): Promise<AskOutcome<B>> {
    const created = await this.#create(body, options.signal);
    options.onCreated?.(created.record);
    if (created.suspended || created.record.mode === 'async') {
      // The conditional return type cannot be narrowed by a runtime check; the body and the gateway agree here.
      return { suspended: true, interaction: created.record } as AskOutcome<B>;
    }
    return (await this.#waitFor(created.record, options.signal)) as AskOutcome<B>;
  }

  /**
   * Asks for an action on an outside surface (`answer_format: "external"`): mints the callback URL, passes it to
   * `build` (which creates the outside resource and returns the URL to visit), hands that URL to `present`, and
   * blocks until the outside system POSTs the payload to the callback door or a person completes its confirm page.
   *
   * ```ts
   * const { answer } = await askgate.askExternal({
   *   question: 'Pay the deposit',
   *   build: async (callbackUrl) => (await createCheckout({ webhook: callbackUrl })).url,
   *   present: (url) => console.log('Pay here:', url),
   *   verifier: { name: 'stripe', secret_env: 'STRIPE_WEBHOOK_SECRET' },
   * });
   * ```
   */
  async askExternal<T = unknown>(options: AskExternalOptions): Promise<ExternalAnswer<T>> {
    return askExternal<T>(
      {
        // The external body is built from typed options; AskBody's union cannot express it more narrowly here.
        create: (body, o) => this.create(body as unknown as AskBody, o),
        wait: (id, o) => this.wait(id, o),
        cancel: (id) => this.cancel(id),
      },
      options,
    );
  }

  /**
   * Asks through a preset (`POST /api/presets/{name}/ask`) with only the fields it leaves open, and blocks like
   * `ask` until the answer. A confirmation preset's record carries `confirmation_url` (the page for the party):
   * read it in `onCreated` and hand it on. Passing a field the preset fixes is a 400 `fixed_by_preset`.
   */
  async askPreset<T = unknown>(
    name: string,
    fields: PresetAskFields = {},
    options: AskOptions = {},
  ): Promise<AskAnswer<T>> {
    const path = `/api/presets/${encodeURIComponent(name)}/ask`;
    const created = await this.#create(fields, options.signal, path);
    options.onCreated?.(created.record);
    return (await this.#waitFor(created.record, options.signal)) as AskAnswer<T>;
  }

  /** A JSON request to any door with this client's token (the admin doors of presets and confirmations use it). */
  async request<T = unknown>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    return this.#http.json<T>(method, path, { body, signal: options.signal });
  }

  /**
   * Creates an interaction without waiting (`POST /api/interactions`) and returns its record, with `callback_url`
   * when one was minted (only this response shows it). Wait for it later with `wait(id)`.
   */
  async create(body: AskBody, options: RequestOptions = {}): Promise<InteractionRecord> {
    return (await this.#create(body, options.signal)).record;
  }

  /**
   * Blocks until the interaction `id` resolves and returns its answer, exactly as a sync `ask` does after creating
   * it; throws `AskTimeoutError` or `AskCancelledError` likewise.
   */
  async wait<T = unknown>(id: string, options: RequestOptions = {}): Promise<AskAnswer<T>> {
    return (await this.#waitFor(await this.get(id, options), options.signal)) as AskAnswer<T>;
  }

  /**
   * Parks a run on several async asks at once (`POST /api/runs`, a fan-out): all are written, or none. The run
   * resumes once, when the last resolves, with every answer (`results` keyed by interaction id).
   */
  async park(
    body: { run: Record<string, unknown>; asks: Array<Record<string, unknown>> },
    options: RequestOptions = {},
  ): Promise<{ run: Record<string, unknown>; interactions: InteractionRecord[] }> {
    return this.#http.json('POST', '/api/runs', { ...options, body });
  }

  /** Reads a run (`GET /api/runs/{run_id}`): `parked` | `resumed` | `killed`, its asks, its resume attempts. */
  async getRun(runId: string, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.#http.json('GET', `/api/runs/${encodeURIComponent(runId)}`, options);
  }

  /** Reads one interaction record (`GET /api/interactions/{id}`); 404 when unknown or pruned. */
  async get(id: string, options: RequestOptions = {}): Promise<InteractionRecord> {
    return this.#http.json<InteractionRecord>('GET', `/api/interactions/${encodeURIComponent(id)}`, options);
  }

  /**
   * The question's audit trail, oldest first (`GET /api/interactions/{id}/events`): every event with its hash.
   * Check the chain with `verifyChain(events)` (exported by this package).
   */
  async events(id: string, options: RequestOptions = {}): Promise<AuditEvent[]> {
    const path = `/api/interactions/${encodeURIComponent(id)}/events`;
    return (await this.#http.json<{ items: AuditEvent[] }>('GET', path, options)).items;
  }

  /**
   * Reads the record after waiting up to `waitSeconds` (0..60, default `0`: no wait) for it to leave `pending`
   * (`GET /api/interactions/{id}/result?wait=S`). Still `pending` when the wait ran out.
   */
  async result(id: string, waitSeconds = 0, options: RequestOptions = {}): Promise<InteractionRecord> {
    if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > 60) {
      throw new AskgateSdkError(
        `waitSeconds ${waitSeconds} is outside 0..60; loop over shorter waits, or use wait(id).`,
      );
    }
    const path = `/api/interactions/${encodeURIComponent(id)}/result?wait=${Math.floor(waitSeconds)}`;
    return this.#http.json<InteractionRecord>('GET', path, options);
  }

  /**
   * One page of interactions, oldest first (`GET /api/interactions`). Defaults: `status` pending, `limit` 50,
   * the first page, every group. Pass the page's `next_cursor` as `cursor` for the next one.
   */
  async list(options: ListOptions & RequestOptions = {}): Promise<InteractionPage> {
    const query = new URLSearchParams();
    if (options.status !== undefined) query.set('status', options.status);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    if (options.groupId !== undefined) query.set('group_id', options.groupId);
    const search = query.toString();
    return this.#http.json<InteractionPage>('GET', `/api/interactions${search === '' ? '' : `?${search}`}`, options);
  }

  /**
   * Answers an interaction (`POST /api/interactions/{id}/answer`): `'answered'` when this answer won,
   * `'already_answered'` when an earlier one had (nothing changes). A value that does not match the format or
   * schema throws `AskgateHttpError` 400 `invalid_answer` with `field`; expired or cancelled is 410, unknown 404.
   */
  async answer(id: string, value: unknown, options: RequestOptions = {}): Promise<AnswerStatus> {
    const body = await this.#http.json<{ status?: unknown }>(
      'POST',
      `/api/interactions/${encodeURIComponent(id)}/answer`,
      {
        ...options,
        body: { answer: value },
      },
    );
    if (body.status !== 'answered' && body.status !== 'already_answered') {
      throw new AskgateSdkError(
        `the gateway answered POST /api/interactions/{id}/answer with status ${JSON.stringify(body.status)}; expected answered or already_answered.`,
      );
    }
    return body.status;
  }

  /**
   * Cancels a pending ask as its asker (`DELETE /api/interactions/{id}`); a caller blocked on it gets
   * `AskCancelledError`. Returns the cancelled record, or null when the gateway sent no body.
   */
  async cancel(id: string, options: RequestOptions = {}): Promise<InteractionRecord | null> {
    const response = await this.#http.send('DELETE', `/api/interactions/${encodeURIComponent(id)}`, options);
    const text = await response.text();
    if (text === '') return null;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    // Accept the record itself or a wrapper around it; both read naturally as "the cancelled interaction".
    if (typeof parsed['id'] === 'string') return parsed as unknown as InteractionRecord;
    const inner = parsed['interaction'];
    return inner !== null && typeof inner === 'object' ? (inner as InteractionRecord) : null;
  }

  /**
   * Tails the live stream (`GET /api/interactions/stream`): an async iterable of `{type, record}` from the moment
   * of connecting. It connects at once; `await stream.opened` to know it is live. Abort `signal` (default: none)
   * or call `stream.close()` to end it.
   */
  tail(signal?: AbortSignal): TailStream {
    const path = '/api/interactions/stream';
    return new TailStream(
      (streamSignal) => this.#http.send('GET', path, { signal: streamSignal, accept: 'text/event-stream' }),
      (error) => this.#http.networkError(`GET ${path}`, error),
      signal,
    );
  }

  async #create(
    body: AskBody | Record<string, unknown>,
    signal: AbortSignal | undefined,
    path = '/api/interactions',
  ): Promise<{ record: InteractionRecord; suspended: boolean }> {
    const created = await this.#http.json<Record<string, unknown>>('POST', path, { body, signal });
    // The contract says an async ask returns "the record and suspended: true"; accept it beside the record's
    // fields or as a wrapper `{suspended, interaction}`, so either reading of it works.
    const wrapped = created['interaction'];
    if (wrapped !== null && typeof wrapped === 'object' && typeof created['id'] !== 'string') {
      return { record: wrapped as InteractionRecord, suspended: created['suspended'] === true };
    }
    const { suspended, ...record } = created;
    return { record: record as unknown as InteractionRecord, suspended: suspended === true };
  }

  /** The blocking loop: long-polls `result` in slices of at most `maxWaitSeconds`, never past the deadline + grace. */
  async #waitFor(start: InteractionRecord, signal: AbortSignal | undefined): Promise<AskAnswer> {
    let record = start;
    let lastFailure: unknown = null;
    let failures = 0;
    for (;;) {
      if (record.status !== 'pending') return settle(record);
      if (record.undeliverable === true) throw new AskUndeliverableError(record);
      const left = Date.parse(record.deadline_at) + this.#expiryGraceMs - Date.now();
      if (left <= 0) {
        // A gateway we could not reach is not a person who did not answer: report the failure, not a timeout.
        if (lastFailure !== null) throw lastFailure;
        throw new AskTimeoutError(record);
      }
      const wait = Math.min(this.#maxWaitSeconds, Math.max(1, Math.ceil(left / 1000)));
      try {
        record = await this.result(record.id, wait, { signal });
        lastFailure = null;
        failures = 0;
      } catch (error) {
        const transient =
          error instanceof AskgateNetworkError ||
          (error instanceof AskgateHttpError && TRANSIENT_STATUSES.has(error.status));
        if (!transient || signal?.aborted === true) throw error;
        lastFailure = error;
        failures += 1;
        await sleep(Math.min(5000, 250 * 2 ** failures, Math.max(0, left)), signal);
      }
    }
  }
}
