/**
 * `redis+cluster://[[username]:password@]host:port,host:port,…[/]`: the seed nodes of a Redis Cluster. Any reachable
 * seed is enough; the client learns the rest of the cluster (every master and replica, and which slots each serves)
 * from it. Pure: config.ts validates the URL at start with it, connections.ts opens the cluster with it.
 */

export const CLUSTER_SCHEME = 'redis+cluster://';

export interface ClusterUrl {
  nodes: Array<{ host: string; port: number }>;
  username: string | null;
  password: string | null;
}

export function isClusterUrl(url: string): boolean {
  return url.startsWith(CLUSTER_SCHEME);
}

/** Parses a `redis+cluster://` URL; throws an Error whose message says what is wrong and how to write it. */
export function parseClusterUrl(url: string): ClusterUrl {
  const example = 'e.g. redis+cluster://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379';
  if (!isClusterUrl(url)) throw new Error(`must start with ${CLUSTER_SCHEME}; ${example}.`);
  let rest = url.slice(CLUSTER_SCHEME.length).replace(/\/$/, '');
  let username: string | null = null;
  let password: string | null = null;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    const user = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
    const pass = colon === -1 ? '' : decodeURIComponent(auth.slice(colon + 1));
    // `user@` alone names no password; as in redis:// URLs, `:password@` is the password with the default user.
    if (pass === '')
      throw new Error(`names a user but no password; write redis+cluster://[user]:password@host:port,….`);
    username = user === '' ? null : user;
    password = pass;
  }
  if (rest === '') throw new Error(`names no node; ${example}.`);
  const nodes = rest.split(',').map((part) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(part.trim());
    const port = m === null ? Number.NaN : Number(m[2]);
    if (m === null || !(port >= 1 && port <= 65_535)) {
      throw new Error(`"${part}" is not host:port (every seed node needs its port); ${example}.`);
    }
    return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
  });
  return { nodes, username, password };
}

/** The URL without its password, for messages. */
export function redactClusterUrl(url: string): string {
  return url.replace(/^(redis\+cluster:\/\/[^:@/]*:)[^@]*@/, '$1***@');
}
