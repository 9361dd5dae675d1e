import { BOT_FRAMEWORK_SCOPE, MAX_429_RETRIES, MAX_RETRY_AFTER_SECONDS } from './limits.js';
import { ChannelError } from '../contract.js';
import type { SharedPacer } from '../shared-pacing.js';

/**
 * The Bot Framework connector over fetch: the bot's token by client credentials (cached until a few minutes before it
 * expires, one fetch at a time), and the three calls askgate makes — send to a conversation, reply to an activity,
 * update an activity — each paced per conversation through the shared slots and honouring a 429's Retry-After.
 * REST reference: learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference;
 * the token: learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication.
 */

export interface ConnectorOptions {
  appId: string;
  appPassword: string;
  tenantId: string;
  loginUrl: string;
  pacer: SharedPacer;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** A token is fetched again this long before it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;

export class BotConnector {
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: ConnectorOptions) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  /** The token endpoint: `{TEAMS_LOGIN_URL}/{TEAMS_TENANT_ID}/oauth2/v2.0/token`. */
  get tokenUrl(): string {
    return `${this.options.loginUrl}/${encodeURIComponent(this.options.tenantId)}/oauth2/v2.0/token`;
  }

  async bearer(): Promise<string> {
    const held = this.token;
    if (held !== null && this.now() < held.expiresAt - TOKEN_MARGIN_MS) return held.value;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.appId,
      client_secret: this.options.appPassword,
      scope: BOT_FRAMEWORK_SCOPE,
    });
    let res: Response;
    try {
      res = await this.fetch(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
    } catch (err) {
      throw new ChannelError('teams', 'network', 'the Teams token endpoint could not be reached.', null, {
        cause: err,
      });
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    const value = body['access_token'];
    const expiresIn = Number(body['expires_in']);
    if (!res.ok || typeof value !== 'string' || !Number.isFinite(expiresIn))
      // The endpoint's own error code, never the secret or the request.
      throw new ChannelError(
        'teams',
        'refused',
        `the Teams token endpoint refused the app's credentials (${res.status} ${String(body['error'] ?? '')}); check TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID.`,
      );
    this.token = { value, expiresAt: this.now() + expiresIn * 1000 };
    return value;
  }

  /** POST {serviceUrl}/v3/conversations/{id}/activities: a new message; resolves with its activity id. */
  async send(serviceUrl: string, conversationId: string, activity: Record<string, unknown>): Promise<string> {
    const url = `${base(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
    return idOf(await this.call('POST', url, conversationId, activity));
  }

  /** POST …/activities/{activityId}: a reply to that activity, in its thread. */
  async reply(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: Record<string, unknown>,
  ): Promise<string> {
    const url = `${base(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities/${encodeURIComponent(activityId)}`;
    return idOf(await this.call('POST', url, conversationId, { ...activity, replyToId: activityId }));
  }

  /** PUT …/activities/{activityId}: the message replaced (the outcome, a live count). */
  async update(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: Record<string, unknown>,
  ): Promise<void> {
    const url = `${base(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities/${encodeURIComponent(activityId)}`;
    await this.call('PUT', url, conversationId, { ...activity, id: activityId });
  }

  private async call(
    method: 'POST' | 'PUT',
    url: string,
    conversationId: string,
    activity: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { pacer } = this.options;
    for (let attempt = 0; ; attempt += 1) {
      const wait = await pacer.reserve(conversationId);
      if (wait > 0) await this.sleep(wait);
      await pacer.depart(conversationId);
      const token = await this.bearer();
      let res: Response;
      try {
        res = await this.fetch(url, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(activity),
        });
      } catch (err) {
        throw new ChannelError('teams', 'network', `the Teams connector could not be reached (${method}).`, null, {
          cause: err,
        });
      } finally {
        await pacer.settled(conversationId);
      }
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (res.ok) return body;
      if (res.status === 429) {
        const seconds = retryAfterSeconds(res.headers.get('retry-after'));
        if (attempt >= MAX_429_RETRIES || seconds > MAX_RETRY_AFTER_SECONDS)
          throw new ChannelError('teams', 'refused', 'Teams kept answering 429 Too Many Requests.', seconds);
        // Every process sending into this conversation waits it out, not only this call.
        await pacer.pushBack(conversationId, seconds * 1000);
        continue;
      }
      if (res.status === 401) this.token = null;
      const error = (body['error'] ?? {}) as Record<string, unknown>;
      throw new ChannelError(
        'teams',
        res.status === 400 || res.status === 413 ? 'invalid' : 'refused',
        `Teams answered ${res.status} ${String(error['code'] ?? '')}: ${String(error['message'] ?? '').slice(0, 300)}`.trim(),
      );
    }
  }
}

const base = (serviceUrl: string): string => serviceUrl.replace(/\/+$/, '');

function idOf(body: Record<string, unknown>): string {
  const id = body['id'];
  if (typeof id !== 'string' || id === '')
    throw new ChannelError('teams', 'refused', 'Teams answered without the id of the message it created.');
  return id;
}

/** Retry-After in seconds (the header's delta-seconds form; a date or nothing reads as 1 s). */
function retryAfterSeconds(raw: string | null): number {
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : 1;
}
