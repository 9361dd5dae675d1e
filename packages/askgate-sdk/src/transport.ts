import { AskgateHttpError, AskgateNetworkError, AskgateSdkError } from './errors.js';

/** Per-call options of every method. */
export interface RequestOptions {
  /** Aborts the call; the method then rejects with the signal's reason. Default: none. */
  signal?: AbortSignal;
}

/**
 * The client's wire: one authenticated JSON request to a gateway door, and the typed errors a failed one becomes.
 * Kept apart from the client so the door methods read as what they ask for, and so the one place that holds the
 * token is also the one place that redacts it from every error.
 */
export class GatewayTransport {
  // Private fields: util.inspect and JSON.stringify of the transport (or the client holding it) never show them.
  readonly #url: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(url: string, token: string, fetchImpl: typeof fetch) {
    this.#url = url;
    this.#token = token;
    this.#fetch = fetchImpl;
  }

  /** Sends one request and parses its 2xx body as JSON. */
  async json<T>(method: string, path: string, init: RequestOptions & { body?: unknown }): Promise<T> {
    const response = await this.send(method, path, init);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AskgateSdkError(
        `the gateway answered ${method} ${pathOnly(path)} with ${response.status} but a body that is not JSON.`,
      );
    }
  }

  /** Sends one request; resolves with a 2xx response, rejects with AskgateHttpError / AskgateNetworkError / the abort reason. */
  async send(
    method: string,
    path: string,
    init: RequestOptions & { body?: unknown; accept?: string },
  ): Promise<Response> {
    const request = `${method} ${pathOnly(path)}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: init.accept ?? 'application/json',
    };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.#fetch(this.#url + path, {
        method,
        headers,
        body: init.body === undefined ? null : JSON.stringify(init.body),
        signal: init.signal ?? null,
      });
    } catch (error) {
      if (init.signal?.aborted === true) throw init.signal.reason;
      throw this.networkError(request, error);
    }
    if (response.ok) return response;
    throw await this.#httpError(response, request);
  }

  async #httpError(response: Response, request: string): Promise<AskgateHttpError> {
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a proxy's HTML page, say): fall back to the status line below.
    }
    const code = typeof body?.['error'] === 'string' ? body['error'] : `http_${response.status}`;
    const message =
      typeof body?.['message'] === 'string'
        ? body['message']
        : `${request} answered ${response.status} ${response.statusText}`.trim();
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    return new AskgateHttpError({
      status: response.status,
      code,
      // Whatever a server or proxy echoes back, the token never leaves the client inside an error.
      message: this.#redact(message),
      field: typeof body?.['field'] === 'string' ? body['field'] : undefined,
      request,
      retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined,
      body,
    });
  }

  networkError(request: string, cause: unknown): AskgateNetworkError {
    const error = new AskgateNetworkError(request, this.#url, cause);
    error.message = this.#redact(error.message);
    return error;
  }

  #redact(text: string): string {
    return text.split(this.#token).join('[token]');
  }
}

function pathOnly(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}
