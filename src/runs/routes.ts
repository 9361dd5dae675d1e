import { literalWebhookRefusal } from '../core/network-address.js';
import type { Identity } from '../core/types.js';
import { HANDLER_NAME } from './job-bus.js';

/**
 * Routes: how a chat message that answers no pending question reaches a run (docs/parks.md, "Routes").
 *
 * `ASKGATE_ROUTES` is a JSON list; each route maps a channel (and optionally one chat on it) to a target — a
 * webhook or an SDK handler — run under a named identity, with a reply mapping that turns the target's output into
 * the text posted back into the thread. Parsing lives here, beside matching and mapping, so config.ts only calls it
 * and every rule of a route is read in one place.
 */

export type RouteTarget = { webhook: string } | { handler: string };
export type ReplyMapping = { path: string } | { template: string };

export interface Route {
  /** Unique; stored with the run's thread so a late reply is mapped by the route that started it. */
  name: string;
  channel: string;
  /** The chat (Telegram chat id, Slack channel, phone number...) this route is limited to; null for every chat. */
  chat: string | null;
  /** The identity (from ASKGATE_TOKENS) the turn is delivered and parked under. */
  identity: string;
  target: RouteTarget;
  reply: ReplyMapping;
}

const VARIABLE = 'ASKGATE_ROUTES';
const DEFAULT_REPLY: ReplyMapping = { path: 'text' };
const FIELDS = new Set(['name', 'channel', 'chat', 'identity', 'target', 'reply']);

/** A route error: one line, naming the variable and the route. Thrown as config.ts's ConfigError by the caller. */
export class RouteConfigError extends Error {}

const fail = (where: string, message: string): never => {
  throw new RouteConfigError(`${where}: ${message}`);
};

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parseTarget(raw: unknown, where: string, identity: Identity, allowPrivate: boolean): RouteTarget {
  if (!isObject(raw)) return fail(where, '"target" must be {"webhook": "<https url>"} or {"handler": "<name>"}.');
  if (typeof raw['webhook'] === 'string' && Object.keys(raw).length === 1) {
    let url: URL | null = null;
    try {
      url = new URL(raw['webhook']);
    } catch {
      url = null;
    }
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:'))
      return fail(where, `"target.webhook" "${raw['webhook']}" is not an http(s) URL.`);
    const refusal = allowPrivate ? null : literalWebhookRefusal(raw['webhook']);
    if (refusal !== null) return fail(where, `"target.webhook" ${refusal}`);
    // The turn is signed like a resume webhook, with the route identity's secret.
    if (identity.webhookSecret === null)
      return fail(
        where,
        `a webhook target needs identity "${identity.name}" to have a "webhook_secret" in ASKGATE_TOKENS.`,
      );
    return { webhook: raw['webhook'] };
  }
  if (typeof raw['handler'] === 'string' && Object.keys(raw).length === 1) {
    if (!HANDLER_NAME.test(raw['handler']))
      return fail(where, '"target.handler" must be 1..100 letters, digits, "_", "." or "-".');
    return { handler: raw['handler'] };
  }
  return fail(where, '"target" must be {"webhook": "<https url>"} or {"handler": "<name>"}.');
}

function parseReply(raw: unknown, where: string): ReplyMapping {
  if (raw === undefined) return DEFAULT_REPLY;
  if (isObject(raw) && Object.keys(raw).length === 1) {
    if (typeof raw['path'] === 'string') return { path: raw['path'] };
    if (typeof raw['template'] === 'string' && raw['template'] !== '') return { template: raw['template'] };
  }
  return fail(where, '"reply" must be {"path": "<dot.path>"} or {"template": "...{{output.<dot.path>}}..."}.');
}

/** Parses ASKGATE_ROUTES against the identities of ASKGATE_TOKENS. Throws RouteConfigError (one line). */
export function parseRoutes(raw: string, tokens: ReadonlyMap<string, Identity>, allowPrivateWebhooks = false): Route[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail(
      VARIABLE,
      'is not valid JSON; set it to [{"channel": "telegram", "identity": "<name>", "target": {"webhook": "https://..."}}].',
    );
  }
  if (!Array.isArray(parsed))
    return fail(
      VARIABLE,
      'must be a JSON list of routes {"channel", "chat"?, "identity", "target", "reply"?, "name"?}.',
    );
  const identities = new Map([...tokens.values()].map((i) => [i.name, i]));
  const routes: Route[] = [];
  for (const [i, entry] of (parsed as unknown[]).entries()) {
    const where = `${VARIABLE} route ${i + 1}`;
    if (!isObject(entry)) return fail(where, 'must be an object {"channel", "identity", "target", ...}.');
    const extra = Object.keys(entry).find((k) => !FIELDS.has(k));
    if (extra !== undefined)
      fail(where, `"${extra}" is not a route field; use name, channel, chat, identity, target, reply.`);
    const channel = entry['channel'];
    if (typeof channel !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(channel))
      fail(where, '"channel" must name a channel, e.g. "telegram".');
    const chat = entry['chat'] === undefined ? null : entry['chat'];
    if (chat !== null && (typeof chat !== 'string' || chat === ''))
      fail(where, '"chat" must be a non-empty string (the chat id, as a string).');
    const identity = identities.get(String(entry['identity']));
    if (typeof entry['identity'] !== 'string' || identity === undefined)
      fail(where, `"identity" must name an identity of ASKGATE_TOKENS (the turn is delivered and parked under it).`);
    const name = entry['name'] ?? (chat === null ? channel : `${String(channel)}:${String(chat)}`);
    if (typeof name !== 'string' || name === '') fail(where, '"name" must be a non-empty string.');
    const route: Route = {
      name: name as string,
      channel: channel as string,
      chat: chat as string | null,
      identity: (identity as Identity).name,
      target: parseTarget(entry['target'], where, identity as Identity, allowPrivateWebhooks),
      reply: parseReply(entry['reply'], where),
    };
    if (routes.some((r) => r.name === route.name))
      fail(where, `the name "${route.name}" is used by another route; names must be unique.`);
    if (routes.some((r) => r.channel === route.channel && r.chat === route.chat)) {
      const taken =
        route.chat === null ? `every chat of "${route.channel}"` : `chat "${route.chat}" of "${route.channel}"`;
      fail(where, `another route already takes ${taken}.`);
    }
    routes.push(route);
  }
  return routes;
}

/** The route for a message: the one naming its chat wins over the channel-wide one; null when none matches. */
export function matchRoute(routes: readonly Route[], channel: string, chat: string): Route | null {
  return (
    routes.find((r) => r.channel === channel && r.chat === chat) ??
    routes.find((r) => r.channel === channel && r.chat === null) ??
    null
  );
}

function at(value: unknown, path: string): unknown {
  if (path === '') return value;
  let cur = value;
  for (const part of path.split('.')) {
    if (!isObject(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * The text a target's output becomes. `path` picks a value (a string as is, anything else as JSON; "" the whole
 * output); a `template` replaces each `{{output.<path>}}` (or `{{output}}`). A bare string output is its own text
 * under any path, so the simplest target can answer with plain text. No output, or an empty result, posts
 * nothing.
 */
export function mapReply(mapping: ReplyMapping, output: unknown): string {
  // No output (an empty body, a handler returning nothing) is silence, even under a template with fixed words.
  if (output === null || output === undefined) return '';
  if ('template' in mapping) {
    return mapping.template
      .replace(/\{\{\s*output(?:\.([^}\s]+))?\s*\}\}/g, (_m, path: string | undefined) =>
        asText(at(output, path ?? '')),
      )
      .trim();
  }
  // A string has no fields to pick: it is the text whatever the path.
  if (typeof output === 'string') return output.trim();
  return asText(at(output, mapping.path)).trim();
}
