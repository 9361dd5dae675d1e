/**
 * The inbox's way to the API doors: a bearer token on every request, JSON both ways, and the doors' error body
 * (`{error, message, field?, errors?}`) read into one shape. A refused token is reported once, so the page can ask again.
 */
import type { FieldViolation } from '../forms/refusal.js';

export interface ApiError {
  error: string;
  message: string;
  field?: string;
  /** An answer refusal's every violation (`invalid_answer`), each `{field, reason}`. */
  errors?: FieldViolation[];
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; error: ApiError };

export class Api {
  constructor(
    private readonly token: string,
    /** Called on a 401: the token is unknown or revoked. */
    private readonly onUnauthorized: () => void,
  ) {}

  get authorization(): string {
    return `Bearer ${this.token}`;
  }

  async request<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<ApiResult<T>> {
    const headers: Record<string, string> = {
      ...extraHeaders,
      Authorization: this.authorization,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      return {
        ok: false,
        status: 0,
        error: { error: 'network', message: 'Could not reach askgate. Check the connection and try again.' },
      };
    }
    const parsed: unknown = await response.json().catch(() => null);
    if (response.ok) return { ok: true, status: response.status, body: parsed as T };
    if (response.status === 401) this.onUnauthorized();
    return { ok: false, status: response.status, error: readError(parsed, response.status) };
  }
}

function readError(body: unknown, status: number): ApiError {
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const error: ApiError = {
    error: typeof b['error'] === 'string' ? b['error'] : `http_${status}`,
    message: typeof b['message'] === 'string' ? b['message'] : `askgate answered HTTP ${status}.`,
  };
  if (typeof b['field'] === 'string') error.field = b['field'];
  const listed = Array.isArray(b['errors']) ? (b['errors'] as unknown[]) : [];
  const errors = listed.filter(
    (e): e is FieldViolation =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as Record<string, unknown>)['field'] === 'string' &&
      typeof (e as Record<string, unknown>)['reason'] === 'string',
  );
  if (errors.length > 0) error.errors = errors;
  return error;
}
