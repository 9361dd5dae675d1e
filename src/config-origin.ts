import { ConfigError } from './config-env.js';
import { MIN_LINK_SECRET_LENGTH } from './core/action-links.js';

/**
 * Where people reach this gateway, and what depends on it: the public base URL (or a loopback gateway's own origin),
 * whether a listen address is loopback, and the action links' key (links are URLs on that origin).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A listen address only this machine reaches: localhost, 127.0.0.0/8 or ::1 (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || LOOPBACK_HOSTS.has(`[${host}]`) || /^127(\.\d{1,3}){3}$/.test(host);
}

export function parsePublicBaseUrl(raw: string | null): string | null {
  const name = 'INTERACTIONS_PUBLIC_BASE_URL';
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL; set it to the https:// origin people reach askgate on.`);
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigError(
      name,
      'must be https:// (http:// only on localhost, 127.0.0.1 or [::1]) because callback URLs are bearer capabilities.',
    );
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * A gateway listening on a loopback address is reached on that address, and only from this machine: unset, its
 * public base URL is its own origin, so channel, external and link asks work on `npm start` (the web chat's links,
 * a callback page) without setting anything. Elsewhere (0.0.0.0, a LAN address) the public origin is not ours to
 * guess — a proxy or a name in front — and stays unset. PORT=0 (any free port) is known only after listening.
 */
export function loopbackOrigin(host: string, port: number): string | null {
  if (port === 0 || !isLoopbackHost(host)) return null;
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The action links' key: long enough that guessing it is hopeless; never echoed in the refusal. */
export function parseLinkSecret(raw: string | null, publicBaseUrl: string | null): string | null {
  if (raw === null) return null;
  if (publicBaseUrl === null)
    throw new ConfigError(
      'INTERACTIONS_PUBLIC_BASE_URL',
      'is unset, but ASKGATE_LINK_SECRET is set: action links are URLs on the public origin; set it too.',
    );
  if (raw.length < MIN_LINK_SECRET_LENGTH)
    throw new ConfigError(
      'ASKGATE_LINK_SECRET',
      `is ${raw.length} characters; use at least ${MIN_LINK_SECRET_LENGTH} random ones (e.g. \`openssl rand -hex 32\`).`,
    );
  return raw;
}
