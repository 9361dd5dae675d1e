import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';

/**
 * A loopback Bot Framework for Microsoft Teams: everything askgate talks to, and the sender of signed activities.
 *
 * - OpenID metadata (`/botframework/v1/.well-known/openidconfiguration`) naming its JWKS by `jwks_uri`, and the JWKS
 *   (RS256 keys with `endorsements: ["msteams"]`), whose key a test rotates (`rotateKey`): the old key is then no
 *   longer published, as after Microsoft's rotation. Learn: "Bot Framework REST API: authentication", "Connector
 *   to bot" (learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication).
 * - The token endpoint (`/login/{tenant}/oauth2/v2.0/token`): client credentials for the app, scope
 *   `https://api.botframework.com/.default`, tokens valid 3599 s (`expires_in`), as Entra's v2.0 endpoint answers.
 * - The connector (`{serviceUrl}v3/conversations/…`): send to a conversation, reply to an activity, update an
 *   activity, each with a token it issued (else 401). It refuses what Teams refuses: an unknown conversation (404
 *   `ConversationNotFound`), a message over 40 KB counted as UTF-16 (413 `MessageSizeTooBig`, "Format your bot
 *   messages"), an activity without `type: "message"` or an Adaptive Card without `type`/`version`/`body`, an
 *   `Action.Execute` without `verb`, or duplicate input ids (400 `BadSyntax`); and it rate-limits per conversation as
 *   "Optimize your bot with rate limiting" lists for one bot in one thread — 7 per 1 s, 8 per 2 s, 60 per 30 s, 1800
 *   per 3600 s — with 429 and `Retry-After`. A request that comes back before a Retry-After it was given has passed
 *   is counted in `earlyRetries` (a client that does not honour it).
 * - Activities to askgate's messaging endpoint: a message, a reply, an install, an `adaptiveCard/action` invoke, each
 *   signed as the Bot Framework signs them (a JWT in `Authorization: Bearer`, iss `https://api.botframework.com`, aud
 *   the app id, `serviceurl` the activity's), or signed wrongly on purpose. An invoke's response card is applied to
 *   the message as Teams does (it replaces the card).
 */

type Json = Record<string, unknown>;

export interface FakeTeamsMessage {
  id: string;
  conversationId: string;
  /** The message it replies to (`replyToId`), if any. */
  replyToId: string | null;
  /** What the message is now. */
  activity: Json;
  /** Every version, oldest first (an update or an invoke's card appends). */
  history: Json[];
}

export interface FakePerson {
  id: string;
  aadObjectId: string;
  name: string;
}

export const ADA: FakePerson = {
  id: '29:ada',
  aadObjectId: '00000000-0000-0000-0000-00000000ada1',
  name: 'Ada Lovelace',
};
export const BOB: FakePerson = { id: '29:bob', aadObjectId: '00000000-0000-0000-0000-000000000b0b', name: 'Bob' };

/** How to sign an activity: properly (default), or broken one way. */
export interface SignOptions {
  /** `none`: no Authorization header; `stranger`: a key the JWKS never published. */
  key?: 'current' | 'stranger' | 'none';
  issuer?: string;
  audience?: string;
  /** Seconds from now to `exp` (negative: expired). Default 3600. */
  expiresIn?: number;
  /** The `serviceurl` claim, when it should differ from the activity's. */
  serviceUrl?: string;
}

export interface SendResult {
  status: number;
  body: Json | null;
}

export interface FakeTeams {
  appId: string;
  appPassword: string;
  tenantId: string;
  loginUrl: string;
  metadataUrl: string;
  serviceUrl: string;
  /** Metadata and JWKS fetches, and token requests, counted. */
  readonly counts: { metadata: number; jwks: number; tokens: number; connector: number };
  readonly earlyRetries: number;
  /** Every 429 the connector answered. */
  readonly throttled: number;
  useGateway(url: string): void;
  /** A new signing key: the JWKS publishes only it from now on. */
  rotateKey(): Promise<void>;
  /** The connector answers the next `times` calls into `conversation` with 429 and this Retry-After (seconds). */
  tooManyRequests(conversation: string, retryAfterSeconds: number, times?: number): void;
  /** The bot is installed in a conversation: Teams sends `conversationUpdate` (askgate learns the serviceUrl). */
  install(
    conversation: string,
    type?: 'personal' | 'channel' | 'groupChat',
    options?: SignOptions,
  ): Promise<SendResult>;
  /** A conversation Teams knows but askgate never heard of (no activity was sent from it). */
  addSilentConversation(conversation: string): void;
  /** The bot is removed from a conversation without askgate hearing of it: the connector answers 404 there. */
  uninstall(conversation: string): void;
  /** A person writes in a conversation, optionally replying to a message. */
  say(
    conversation: string,
    text: string,
    options?: { replyToId?: string; from?: FakePerson; sign?: SignOptions; id?: string },
  ): Promise<SendResult>;
  /** A person presses an `Action.Execute` on a message (by its title), with the card's inputs. */
  press(
    message: FakeTeamsMessage,
    title: string,
    options?: { inputs?: Json; from?: FakePerson; sign?: SignOptions; id?: string },
  ): Promise<SendResult>;
  /** The Bearer token the Bot Framework would send with `activity` (signed as asked). */
  token(activity: Json, sign?: SignOptions): Promise<string | null>;
  /** Sends a raw activity (filled with ids and the serviceUrl) signed as asked. */
  send(activity: Json, sign?: SignOptions): Promise<SendResult>;
  messagesIn(conversation: string): FakeTeamsMessage[];
  message(conversation: string, id: string): FakeTeamsMessage | undefined;
  close(): Promise<void>;
}

const APP_ID = '11111111-2222-3333-4444-555555555555';
const TENANT = '99999999-8888-7777-6666-555555555555';
const ISSUER = 'https://api.botframework.com';
export const SCOPE = 'https://api.botframework.com/.default';
/** Per bot per thread, sending: window (ms) → requests allowed. */
const THREAD_LIMITS: ReadonlyArray<[number, number]> = [
  [1000, 7],
  [2000, 8],
  [30_000, 60],
  [3_600_000, 1800],
];
const MESSAGE_MAX_UTF16_BYTES = 40 * 1024;

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256', endorsements: ['msteams'] };
  return { kid, privateKey, jwk };
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

function reply(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
const connectorError = (res: ServerResponse, status: number, code: string, message: string): void =>
  reply(res, status, { error: { code, message } });

/** Why Teams would refuse this activity (400 BadSyntax), or null. */
function activityProblem(activity: Json): string | null {
  if (activity['type'] !== 'message') return 'activity.type must be "message"';
  const attachments = activity['attachments'];
  if (attachments === undefined)
    return typeof activity['text'] === 'string' ? null : 'a message needs text or attachments';
  if (!Array.isArray(attachments)) return 'attachments must be a list';
  for (const a of attachments as Json[]) {
    if (a['contentType'] !== 'application/vnd.microsoft.card.adaptive') continue;
    const card = a['content'] as Json | undefined;
    if (card?.['type'] !== 'AdaptiveCard' || typeof card['version'] !== 'string' || !Array.isArray(card['body']))
      return 'an Adaptive Card needs type, version and body';
    const ids = new Set<string>();
    for (const element of card['body'] as Json[]) {
      if (typeof element['id'] !== 'string') continue;
      if (ids.has(element['id'])) return `input id "${element['id']}" is used twice`;
      ids.add(element['id']);
    }
    for (const action of (card['actions'] as Json[] | undefined) ?? [])
      if (action['type'] === 'Action.Execute' && typeof action['verb'] !== 'string')
        return 'Action.Execute needs a verb';
  }
  return null;
}

export async function startFakeTeams(): Promise<FakeTeams> {
  let key = await newKey();
  const stranger = await newKey();
  const appPassword = randomBytes(18).toString('base64url');
  const tokens = new Set<string>();
  const counts = { metadata: 0, jwks: 0, tokens: 0, connector: 0 };
  const conversations = new Set<string>();
  const messages = new Map<string, FakeTeamsMessage>();
  const sent = new Map<string, number[]>();
  const notBefore = new Map<string, number>();
  const forced = new Map<string, number[]>();
  let earlyRetries = 0;
  let throttled = 0;
  let seq = 1_700_000_000_000;
  let gateway = '';
  let base = '';

  /** The per-thread limits: null when the call may go, else the Retry-After (s). */
  const rateLimit = (conversation: string, now: number): number | null => {
    const until = notBefore.get(conversation) ?? 0;
    if (now < until) {
      earlyRetries += 1;
      return Math.ceil((until - now) / 1000);
    }
    const queued = forced.get(conversation);
    if (queued !== undefined && queued.length > 0) return queued.shift() as number;
    const times = (sent.get(conversation) ?? []).filter((t) => now - t < 3_600_000);
    for (const [window, max] of THREAD_LIMITS) {
      const inWindow = times.filter((t) => now - t < window);
      if (inWindow.length >= max) return Math.ceil((window - (now - (inWindow[0] as number))) / 1000);
    }
    times.push(now);
    sent.set(conversation, times);
    return null;
  };

  const connector = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    counts.connector += 1;
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice(7)))
      return connectorError(res, 401, 'Unauthorized', 'Authorization has been denied for this request.');
    const m = /^\/teams\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(path);
    if (m === null) return connectorError(res, 404, 'NotFound', 'no such route');
    const conversation = decodeURIComponent(m[1] as string);
    const activityId = m[2] === undefined ? null : decodeURIComponent(m[2]);
    if (!conversations.has(conversation))
      return connectorError(res, 404, 'ConversationNotFound', 'Conversation not found.');
    const raw = await readBody(req);
    let activity: Json;
    try {
      activity = JSON.parse(raw) as Json;
    } catch {
      return connectorError(res, 400, 'BadSyntax', 'the body is not JSON');
    }
    if (raw.length * 2 > MESSAGE_MAX_UTF16_BYTES)
      return connectorError(res, 413, 'MessageSizeTooBig', 'Message size too big.');
    const problem = activityProblem(activity);
    if (problem !== null) return connectorError(res, 400, 'BadSyntax', problem);
    const retryAfter = rateLimit(conversation, Date.now());
    if (retryAfter !== null) {
      throttled += 1;
      notBefore.set(conversation, Math.max(notBefore.get(conversation) ?? 0, Date.now() + retryAfter * 1000));
      return reply(
        res,
        429,
        { error: { code: 'TooManyRequests', message: 'Too many requests.' } },
        {
          'retry-after': String(retryAfter),
        },
      );
    }
    if (req.method === 'PUT') {
      const existing = activityId === null ? undefined : messages.get(`${conversation}:${activityId}`);
      if (existing === undefined) return connectorError(res, 404, 'ActivityNotFound', 'Unknown activity.');
      existing.activity = activity;
      existing.history.push(activity);
      return reply(res, 200, { id: existing.id });
    }
    // A reply may quote any activity of the conversation, the person's messages included (askgate never saw those
    // stored here), as the connector's Reply to Activity takes any activity id.
    const id = String(++seq);
    messages.set(`${conversation}:${id}`, {
      id,
      conversationId: conversation,
      replyToId: activityId,
      activity,
      history: [activity],
    });
    return reply(res, 201, { id });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/botframework/v1/.well-known/openidconfiguration') {
      counts.metadata += 1;
      return reply(res, 200, {
        issuer: ISSUER,
        authorization_endpoint: `${base}/botframework/v1/authorize`,
        jwks_uri: `${base}/botframework/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
    }
    if (req.method === 'GET' && path === '/botframework/v1/.well-known/keys') {
      counts.jwks += 1;
      return reply(res, 200, { keys: [key.jwk] });
    }
    const token = /^\/login\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (req.method === 'POST' && token !== null) {
      counts.tokens += 1;
      const form = new URLSearchParams(await readBody(req));
      if (token[1] !== TENANT) return reply(res, 400, { error: 'invalid_tenant' });
      if (form.get('grant_type') !== 'client_credentials') return reply(res, 400, { error: 'unsupported_grant_type' });
      if (form.get('client_id') !== APP_ID || form.get('client_secret') !== appPassword)
        return reply(res, 401, { error: 'invalid_client' });
      if (form.get('scope') !== SCOPE) return reply(res, 400, { error: 'invalid_scope' });
      const accessToken = randomBytes(24).toString('base64url');
      tokens.add(accessToken);
      return reply(res, 200, {
        token_type: 'Bearer',
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: accessToken,
      });
    }
    if (path.startsWith('/teams/v3/')) return connector(req, res, path);
    return reply(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => reply(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceUrl = `${base}/teams/`;

  const sign = async (activity: Json, options: SignOptions): Promise<string | null> => {
    if (options.key === 'none') return null;
    const signer = options.key === 'stranger' ? stranger : key;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ serviceurl: options.serviceUrl ?? activity['serviceUrl'] })
      .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? APP_ID)
      .setIssuedAt(now - 10)
      .setNotBefore(now - 10)
      .setExpirationTime(now + (options.expiresIn ?? 3600))
      .sign(signer.privateKey);
  };

  const send = async (partial: Json, options: SignOptions = {}): Promise<SendResult> => {
    const activity: Json = {
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      channelId: 'msteams',
      serviceUrl,
      recipient: { id: `28:${APP_ID}`, name: 'askgate' },
      ...partial,
    };
    const jwt = await sign(activity, options);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (jwt !== null) headers['authorization'] = `Bearer ${jwt}`;
    const res = await fetch(`${gateway}/channels/teams/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(activity),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as Json) };
  };

  const conversationOf = (id: string, type: string): Json => ({ id, conversationType: type, tenantId: TENANT });
  const typeOf = (conversation: string): string => (conversation.startsWith('19:') ? 'channel' : 'personal');
  const from = (p: FakePerson): Json => ({ id: p.id, aadObjectId: p.aadObjectId, name: p.name });

  return {
    appId: APP_ID,
    appPassword,
    tenantId: TENANT,
    loginUrl: `${base}/login`,
    metadataUrl: `${base}/botframework/v1/.well-known/openidconfiguration`,
    serviceUrl,
    counts,
    get earlyRetries() {
      return earlyRetries;
    },
    get throttled() {
      return throttled;
    },
    useGateway(url) {
      gateway = url;
    },
    async rotateKey() {
      key = await newKey();
    },
    tooManyRequests(conversation, retryAfterSeconds, times = 1) {
      const list = forced.get(conversation) ?? [];
      for (let i = 0; i < times; i++) list.push(retryAfterSeconds);
      forced.set(conversation, list);
    },
    async install(conversation, type, options = {}) {
      conversations.add(conversation);
      return send(
        {
          type: 'conversationUpdate',
          conversation: conversationOf(conversation, type ?? typeOf(conversation)),
          from: from(ADA),
          membersAdded: [{ id: `28:${APP_ID}` }],
          channelData: { tenant: { id: TENANT } },
        },
        options,
      );
    },
    uninstall(conversation) {
      conversations.delete(conversation);
    },
    addSilentConversation(conversation) {
      conversations.add(conversation);
    },
    say(conversation, text, options = {}) {
      return send(
        {
          type: 'message',
          ...(options.id === undefined ? {} : { id: options.id }),
          conversation: conversationOf(conversation, typeOf(conversation)),
          from: from(options.from ?? ADA),
          text,
          textFormat: 'plain',
          ...(options.replyToId === undefined ? {} : { replyToId: options.replyToId }),
          channelData: { tenant: { id: TENANT } },
        },
        options.sign,
      );
    },
    async press(message, title, options = {}) {
      const card = ((message.activity['attachments'] as Json[] | undefined)?.[0]?.['content'] ?? {}) as Json;
      const action = ((card['actions'] as Json[] | undefined) ?? []).find((a) => a['title'] === title);
      if (action === undefined) throw new Error(`no action "${title}" on message ${message.id}`);
      const result = await send(
        {
          type: 'invoke',
          name: 'adaptiveCard/action',
          ...(options.id === undefined ? {} : { id: options.id }),
          conversation: conversationOf(message.conversationId, typeOf(message.conversationId)),
          from: from(options.from ?? ADA),
          replyToId: message.id,
          value: {
            action: {
              type: 'Action.Execute',
              verb: action['verb'],
              data: { ...(action['data'] as Json), ...options.inputs },
            },
            trigger: 'manual',
          },
          channelData: { tenant: { id: TENANT } },
        },
        options.sign,
      );
      // Teams shows the card of the invoke response in place of the pressed one.
      const value = result.body?.['value'];
      if (result.status === 200 && result.body?.['type'] === 'application/vnd.microsoft.card.adaptive') {
        const shown = {
          type: 'message',
          attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: value }],
        };
        message.activity = shown;
        message.history.push(shown);
      }
      return result;
    },
    send,
    token: (activity, options = {}) => sign(activity, options),
    messagesIn: (conversation) => [...messages.values()].filter((m) => m.conversationId === conversation),
    message: (conversation, id) => messages.get(`${conversation}:${id}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The card a message shows now, or null for a text message. */
export function cardOf(message: FakeTeamsMessage): Json | null {
  const content = (message.activity['attachments'] as Json[] | undefined)?.[0]?.['content'];
  return (content as Json | undefined) ?? null;
}

/** Every word a message shows (its text, or its card's TextBlocks). */
export function wordsOf(message: FakeTeamsMessage): string {
  const card = cardOf(message);
  if (card === null) return String(message.activity['text'] ?? '');
  return ((card['body'] as Json[]) ?? [])
    .filter((e) => e['type'] === 'TextBlock')
    .map((e) => String(e['text']))
    .join('\n');
}

/** The actions and inputs a message still offers. */
export function controlsOf(message: FakeTeamsMessage): Json[] {
  const card = cardOf(message);
  if (card === null) return [];
  const inputs = ((card['body'] as Json[]) ?? []).filter((e) => String(e['type']).startsWith('Input.'));
  return [...((card['actions'] as Json[] | undefined) ?? []), ...inputs];
}
