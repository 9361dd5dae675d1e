import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet } from 'jose';
import { BOT_FRAMEWORK_ISSUER, CLOCK_SKEW_SECONDS } from './limits.js';
import { headerOf, refused, textOf, ACCEPTED, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * The Bot Framework's inbound token check (the connector's JWT in `Authorization: Bearer`), with `jose`:
 * - the signing key is one of the JWKS named by the OpenID metadata document's `jwks_uri`, fetched once and kept,
 *   fetched again for a key id not in it (Microsoft rotates keys) — at most once per cooldown, so a stream of made-up
 *   key ids cannot turn every request into two fetches — and again when the keys are a day old;
 * - issuer `https://api.botframework.com`, audience the bot's app id (this channel's `secret` in the one verify
 *   shape), `exp`/`nbf` with 5 minutes of skew, RS256 only;
 * - the `serviceurl` claim equals the activity's `serviceUrl`, so a token minted for one service cannot make askgate
 *   send replies (and its own bearer token) to another address.
 * No core, no express, no vendor SDK (test/channels/boundary.test.ts): `jose` is a JOSE library, not Microsoft's.
 */

type Fetch = (url: string) => Promise<Response>;

export interface TeamsKeysOptions {
  /** TEAMS_OPENID_METADATA_URL. */
  metadataUrl: string;
  fetch?: Fetch;
  /** The least time between two fetches caused by unknown key ids, ms. Default 60 s. */
  refetchCooldownMs?: number;
  /** Keys older than this are fetched again before use, ms. Default a day. */
  maxAgeMs?: number;
}

interface Cached {
  keys: JSONWebKeySet;
  kids: Set<string>;
  fetchedAt: number;
}

/** The Bot Framework's signing keys, as the metadata names them: cached, fetched again for an unknown kid. */
export class TeamsKeys {
  private cached: Cached | null = null;
  private lastRefetch = Number.NEGATIVE_INFINITY;
  private inflight: Promise<Cached> | null = null;
  /** Fetches made (metadata and keys together count one): tests read it. */
  fetches = 0;

  constructor(private readonly options: TeamsKeysOptions) {}

  /** The key set to check a token signed with `kid` against, at `now` (ms). Rejects when the keys cannot be fetched. */
  async keySetFor(kid: string | undefined, now: number): Promise<JSONWebKeySet> {
    const maxAge = this.options.maxAgeMs ?? 86_400_000;
    let cached = this.cached;
    if (cached === null || now - cached.fetchedAt > maxAge) cached = await this.load(now);
    else if (
      kid !== undefined &&
      !cached.kids.has(kid) &&
      now - this.lastRefetch >= (this.options.refetchCooldownMs ?? 60_000)
    ) {
      this.lastRefetch = now;
      cached = await this.load(now);
    }
    return cached.keys;
  }

  private load(now: number): Promise<Cached> {
    // One fetch at a time: requests that arrive together wait for the same keys.
    this.inflight ??= this.fetchKeys(now).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchKeys(now: number): Promise<Cached> {
    const get = this.options.fetch ?? ((url: string) => fetch(url));
    this.fetches += 1;
    const metadata = await getJson(get, this.options.metadataUrl, 'the OpenID metadata');
    const jwksUri = metadata['jwks_uri'];
    if (typeof jwksUri !== 'string') throw new Error('the OpenID metadata names no jwks_uri');
    const jwks = await getJson(get, jwksUri, 'the JWKS');
    if (!Array.isArray(jwks['keys'])) throw new Error('the JWKS has no keys');
    const keys = jwks as unknown as JSONWebKeySet;
    const kids = new Set(keys.keys.flatMap((k) => (typeof k.kid === 'string' ? [k.kid] : [])));
    this.cached = { keys, kids, fetchedAt: now };
    return this.cached;
  }
}

async function getJson(get: Fetch, url: string, what: string): Promise<Record<string, unknown>> {
  const res = await get(url);
  if (!res.ok) throw new Error(`${what} answered ${res.status}`);
  const body = (await res.json()) as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`${what} is not a JSON object`);
  return body as Record<string, unknown>;
}

/** The activity's `serviceUrl`, read only to compare with the token's claim (the parser reads the body after). */
function serviceUrlOf(rawBody: Buffer | string): string | null {
  try {
    const body = JSON.parse(textOf(rawBody)) as unknown;
    const url = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['serviceUrl'] : null;
    return typeof url === 'string' ? url : null;
  } catch {
    return null;
  }
}

/** Why jose refused a token, in words that name the part (never the token). */
function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `the token's ${err.claim} claim is not accepted`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  if (err instanceof errors.JWKSNoMatchingKey) return "the token's key id names no key of the Bot Framework";
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with RS256';
  return 'the token is not a valid JWT';
}

/**
 * `secret` is TEAMS_APP_ID (the audience); `keys` the channel's key source. Without an `Authorization: Bearer` header
 * the refusal is immediate; otherwise the verdict comes once the keys are at hand (a rejection when they cannot be
 * fetched: the door answers 500 and the Bot Framework retries).
 */
export function verify(input: VerifyInput, keys: TeamsKeys | null = null): VerifyResult | Promise<VerifyResult> {
  const header = headerOf(input.headers, 'authorization');
  const match = header === undefined ? null : /^Bearer ([A-Za-z0-9_.-]+)$/.exec(header.trim());
  if (match === null) return refused('the Authorization header carries no Bearer token');
  if (keys === null) return refused('no Bot Framework key source is configured');
  return checkToken(match[1] as string, input, keys);
}

async function checkToken(token: string, input: VerifyInput, keys: TeamsKeys): Promise<VerifyResult> {
  const serviceUrl = serviceUrlOf(input.rawBody);
  if (serviceUrl === null) return refused('the activity names no serviceUrl');
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return refused('the token is not a valid JWT');
  }
  const keySet = await keys.keySetFor(kid, input.now);
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(keySet), {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: input.secret,
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: new Date(input.now),
      algorithms: ['RS256'],
      requiredClaims: ['exp'],
    });
    if (payload['serviceurl'] !== serviceUrl)
      return refused("the token's serviceurl claim is not the activity's serviceUrl");
    return ACCEPTED;
  } catch (err) {
    return refused(reasonOf(err));
  }
}
