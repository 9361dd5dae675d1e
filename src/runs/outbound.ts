import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { blockedAddressReason } from '../core/network-address.js';

/**
 * The one way askgate POSTs to a URL a caller named (resume webhooks, route turns): the outbound pin.
 *
 * Unless private addresses are allowed, the host is resolved and every address it resolves to is checked before
 * the socket connects — inside the `lookup` node's http/https agent connects through, so the address checked is
 * the address connected to, and a DNS answer that changes between a check and the connect (rebinding) cannot slip
 * a private address past it. A literal address in the URL skips DNS, so it is checked before the request starts.
 * Redirects are not followed: a 3xx is a failed delivery like any other non-2xx, so a public host cannot bounce
 * the POST to a private one.
 */

/** Resolves a host name to all its addresses (node's `dns.lookup` with `all: true`); injectable for tests. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundPolicy {
  /** ASKGATE_WEBHOOK_ALLOW_PRIVATE: reach loopback, private, link-local and metadata addresses too. */
  allowPrivate: boolean;
  /** How host names are resolved; node's resolver (hosts file, then DNS) when absent. */
  resolve?: Resolver;
}

/** A request the pin refused before connecting: the host is, or resolves to, an address no webhook may reach. */
export class OutboundRefusedError extends Error {
  /**
   * @param reason the refusal in a few words, naming the address and what it is ("address 169.254.169.254 is
   *   link-local (cloud metadata)"): what a run's attempt outcome shows.
   */
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The largest response body read back; a target's output beyond it is cut (it becomes a chat reply at most). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * A `lookup` for net.connect that resolves through `resolve` and, unless `allowPrivate`, fails when any answer is an
 * address no webhook may reach (refusing the whole answer, not picking a public one out of it, keeps a mixed answer
 * from being a lottery).
 */
export function pinnedLookup(resolve: Resolver, allowPrivate = false): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const bad = allowPrivate ? undefined : wanted.find((a) => blockedAddressReason(a.address) !== null);
        if (bad !== undefined) {
          const reason = blockedAddressReason(bad.address) as string;
          callback(
            new OutboundRefusedError(
              `${hostname} resolves to ${bad.address} (${reason}), which no webhook may reach.`,
              `${hostname} resolves to address ${bad.address}, which is ${reason}`,
            ),
            '',
            0,
          );
          return;
        }
        const first = wanted[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        // `all: true` is what node asks for when it races the addresses (autoSelectFamily); else one address.
        if (options.all === true) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

export interface PostResult {
  status: number;
  text: string;
}

/**
 * POSTs `body` to `url` with `headers` under the pin, within `timeoutMs`; resolves with the status and the body
 * text (any status), rejects with OutboundRefusedError when the pin refused, or the network error.
 */
export async function pinnedPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<PostResult> {
  const target = new URL(url);
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  if (!policy.allowPrivate && isIP(host) !== 0) {
    const reason = blockedAddressReason(host);
    if (reason !== null)
      throw new OutboundRefusedError(
        `${host} is a ${reason} address, which no webhook may reach.`,
        `address ${host} is ${reason}`,
      );
  }
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const lookup =
    policy.allowPrivate && policy.resolve === undefined
      ? undefined
      : pinnedLookup(policy.resolve ?? systemResolver, policy.allowPrivate);
  return new Promise<PostResult>((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(timeoutMs),
        // A fresh connection per delivery: a pooled socket was checked for another host's answer.
        agent: false,
        ...(lookup === undefined ? {} : { lookup }),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
