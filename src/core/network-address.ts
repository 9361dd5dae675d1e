import { isIP } from 'node:net';

/**
 * Which IP addresses an outbound webhook may reach. A resume or route webhook is a URL a caller names; without
 * this rule askgate would POST, signed, to its own loopback, the private network it runs in, or a cloud metadata
 * service (169.254.169.254) on the caller's word. Pure: the ask check (a literal address in the URL) and the send
 * (every address a host name resolves to, checked where the socket connects) share it.
 */

/** IPv4 ranges no webhook may reach: [network address, prefix length, what it is]. */
const BLOCKED_V4: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (shared)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4ToNumber(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function v4Reason(address: string): string | null {
  const n = v4ToNumber(address);
  for (const [base, prefix, what] of BLOCKED_V4) {
    const size = 2 ** (32 - prefix);
    const start = v4ToNumber(base);
    if (n >= start && n < start + size) return what;
  }
  return null;
}

/** The 8 hextets of a valid IPv6 address (an embedded dotted IPv4 tail included). */
function v6Hextets(address: string): number[] {
  let text = address.split('%')[0] as string; // a zone id (fe80::1%eth0) names an interface, not an address
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToNumber(dotted[1] as string);
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const left = parse(head);
  if (tail === null) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function v6Reason(address: string): string | null {
  const h = v6Hextets(address);
  const at = (i: number): number => h[i] ?? 0;
  const first = at(0);
  const v4At = (i: number): string => `${at(i) >> 8}.${at(i) & 255}.${at(i + 1) >> 8}.${at(i + 1) & 255}`;
  if (h.slice(0, 7).every((x) => x === 0)) return at(7) === 1 ? 'loopback' : 'unspecified or IPv4-compatible';
  if (h.slice(0, 5).every((x) => x === 0) && at(5) === 0xffff) return 'IPv4-mapped';
  if (h.slice(0, 4).every((x) => x === 0)) return 'IPv4-compatible or translated';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local (private)';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if (first === 0x2001 && at(1) === 0x0db8) return 'documentation';
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that the network may route to as such.
  if (first === 0x64 && at(1) === 0xff9b) return v4Reason(v4At(6));
  if (first === 0x2002) return v4Reason(v4At(1));
  return null;
}

/**
 * Why `address` (an IPv4 or IPv6 literal, brackets allowed) must not be reached by a webhook — loopback, private,
 * link-local, CGNAT, unique-local, IPv4-mapped, multicast, documentation... — or null when it is a public address.
 * A string that is no IP literal (a host name) is null here: it is judged by what it resolves to.
 */
export function blockedAddressReason(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0] as string);
  if (family === 4) return v4Reason(bare);
  if (family === 6) return v6Reason(bare);
  return null;
}

/**
 * The refusal of a webhook URL whose host is a literal address no webhook may reach, as one sentence, or null.
 * The URL's host is taken as WHATWG URL normalises it, so `http://2130706433/` and `http://0x7f.1/` are seen as
 * 127.0.0.1. A host name passes here; it is checked on the address the send connects to.
 */
export function literalWebhookRefusal(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null; // not a URL: the caller's own shape check words that refusal
  }
  const reason = blockedAddressReason(host);
  return reason === null
    ? null
    : `names ${host} (${reason}), an address no webhook may reach; use a public address or host name ` +
        '(ASKGATE_WEBHOOK_ALLOW_PRIVATE lifts this for development).';
}
