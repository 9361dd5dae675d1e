import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionFaults, type ConnectionFaults } from './connection-faults.js';

/**
 * A loopback Discord: the REST API askgate calls through @discordjs/rest (`DISCORD_API_URL`), and the sender of
 * signed interactions to askgate's Interactions Endpoint URL, as Discord is both.
 *
 * REST (v10): create message, edit message, and the interaction callback. It checks `Authorization: Bot <token>`,
 * refuses what Discord refuses (400, code 50035 "Invalid Form Body": content over 2000, over 5 action rows, over
 * 5 buttons in a row, a select not alone in its row, over 25 options, labels, custom_id over 100; 404 code 10003
 * for an unknown channel), answers with `X-RateLimit-*` headers, and can 429 with `retry_after` (seconds, float).
 *
 * Interactions: the fake signs each with its own Ed25519 key pair exactly as Discord does (hex signature over the
 * `X-Signature-Timestamp` followed by the body), posts it, and applies the response as a Discord client would
 * show it — a modal opens (checked against the modal limits), an ephemeral note appears to the person, a message
 * updates. An interaction is answered once: a second answer (inline or via the callback route) is code 40060.
 *
 * Deadlines, as https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction
 * states them: "you must send an initial response within 3 seconds of receiving the event. If the 3 second deadline
 * is exceeded, the token will be invalidated" — a first response (the HTTP answer or the callback route) arriving
 * later is refused 10062 "Unknown interaction" and the person sees nothing of it; and "Interaction tokens are valid
 * for 15 minutes" — follow-ups (`POST /webhooks/{application.id}/{token}`, `PATCH|GET|DELETE
 * /webhooks/{application.id}/{token}/messages/@original`) after that are refused 401 code 50027 "Invalid Webhook
 * Token", as are follow-ups on a token never acknowledged. Time is the fake's clock (`startFakeDiscord({now})`), so
 * a test can age a token without waiting.
 */

type Json = Record<string, unknown>;

export interface FakeDiscordMessage {
  id: string;
  channelId: string;
  content: string;
  components: Json[];
  /** The message this one replies to (`message_reference`), if any. */
  replyTo: string | null;
  /** Every content the message had, oldest first (edits append). */
  history: string[];
}

/** A modal the gateway opened in answer to an interaction. */
export interface FakeModal {
  customId: string;
  title: string;
  /** The text inputs, in order. */
  inputs: Json[];
  /** The message whose component opened it (a submission carries it). */
  message: FakeDiscordMessage | null;
  user: FakeUser;
}

export interface FakeUser {
  id: string;
  username: string;
  global_name: string | null;
}

/** What happened to one interaction sent to the gateway. */
export interface InteractionOutcome {
  status: number;
  /** The gateway's response body (the interaction callback). */
  response: Json | null;
  /** The modal it opened, the ephemeral note it showed, or why Discord would have refused its response. */
  modal: FakeModal | null;
  ephemeral: string | null;
  refused: string | null;
}

export interface SendOptions {
  /** `missing` drops the signature headers; `wrong` signs with another key. */
  signature?: 'missing' | 'wrong';
  /** Backdates the timestamp (seconds). */
  ageSeconds?: number;
}

export interface FakeDiscord {
  /** Connection resets to play (test/fakes/connection-faults.ts). */
  readonly faults: ConnectionFaults;
  /** The API root to give @discordjs/rest (`DISCORD_API_URL`). */
  readonly apiUrl: string;
  readonly botToken: string;
  readonly applicationId: string;
  /** The public key (hex) askgate verifies interactions with (`DISCORD_PUBLIC_KEY`). */
  readonly publicKey: string;
  readonly calls: Array<{ method: string; path: string; body: Json; status: number }>;
  message(channelId: string, id: string): FakeDiscordMessage | undefined;
  messagesIn(channelId: string): FakeDiscordMessage[];
  /** The next `times` REST calls answer 429 with `retry_after` seconds. */
  tooManyRequests(retryAfter: number, times?: number): void;
  /** The bot's DM channel with `userId`, once askgate opened it. */
  dmWith(userId: string): string | undefined;
  /** A channel the bot cannot see (create message: 404, Unknown Channel). */
  forgetChannel(channelId: string): void;
  /**
   * An interaction as Discord would send one (a fresh id and token, created now by the fake's clock), not posted
   * anywhere: for a client that answers it over REST itself.
   */
  mintInteraction(): { id: string; token: string };
  /** Follow-up messages sent with interaction tokens, oldest first. */
  readonly followUps: Array<{ token: string; content: string }>;
  /** Where interactions go: askgate's base URL. */
  useGateway(url: string): void;
  ping(options?: SendOptions): Promise<InteractionOutcome>;
  /** Posts the last interaction again, byte for byte (same id and token), freshly signed: a redelivery. */
  redeliver(): Promise<InteractionOutcome>;
  /** A click on a button (or a pick in a string select, with `values`) of `message`. */
  click(
    message: FakeDiscordMessage,
    customId: string,
    options?: SendOptions & { user?: FakeUser; values?: string[] },
  ): Promise<InteractionOutcome>;
  /** Submits `modal` with text input custom_id → value. */
  submit(modal: FakeModal, values: Record<string, string>, options?: SendOptions): Promise<InteractionOutcome>;
  close(): Promise<void>;
}

export const DISCORD_BOT_TOKEN = 'fake-discord-bot-token.0123456789';
export const APPLICATION_ID = '1300000000000000001';
export const ADA: FakeUser = { id: '1300000000000000042', username: 'ada', global_name: 'Ada Lovelace' };

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const len = (v: unknown): number => (typeof v === 'string' ? [...v].length : 0);
const invalid = (what: string): Refusal => new Refusal(400, 50035, `Invalid Form Body: ${what}`);

/** The message component limits Discord enforces on create / edit / UPDATE_MESSAGE. */
function checkMessage(body: Json): { content: string; components: Json[] } {
  const content = typeof body['content'] === 'string' ? body['content'] : '';
  if (len(content) > 2000) throw invalid('content: Must be 2000 or fewer in length.');
  const components = Array.isArray(body['components']) ? (body['components'] as Json[]) : [];
  if (components.length > 5) throw invalid('components: Must be 5 or fewer in length.');
  for (const row of components) {
    const items = Array.isArray(row['components']) ? (row['components'] as Json[]) : [];
    if (row['type'] !== 1 || items.length === 0) throw invalid('components: an action row of 1 to 5 components');
    if (items.length > 5) throw invalid('components.components: Must be 5 or fewer in length.');
    for (const c of items) {
      if (c['type'] === 2) {
        if (len(c['label']) > 80) throw invalid('button label: Must be 80 or fewer in length.');
        if (c['style'] === 5 ? typeof c['url'] !== 'string' : len(c['custom_id']) === 0 || len(c['custom_id']) > 100)
          throw invalid('button custom_id: Must be between 1 and 100 in length.');
      } else if (c['type'] === 3) {
        if (items.length !== 1) throw invalid('a string select must be alone in its action row');
        const options = Array.isArray(c['options']) ? (c['options'] as Json[]) : [];
        if (options.length === 0 || options.length > 25) throw invalid('options: Must be between 1 and 25 in length.');
        if (len(c['custom_id']) === 0 || len(c['custom_id']) > 100) throw invalid('select custom_id');
        if (len(c['placeholder']) > 150) throw invalid('placeholder: Must be 150 or fewer in length.');
        for (const o of options)
          if (len(o['label']) > 100 || len(o['value']) > 100 || len(o['value']) === 0)
            throw invalid('option label/value: Must be 100 or fewer in length.');
      } else throw invalid(`component type ${String(c['type'])} is not allowed in a message`);
    }
  }
  return { content, components };
}

/** The modal limits: title ≤ 45, custom_id ≤ 100, 1–5 rows each holding one text input within its limits. */
function checkModal(data: Json): { customId: string; title: string; inputs: Json[] } {
  if (len(data['title']) === 0 || len(data['title']) > 45) throw invalid('title: Must be between 1 and 45 in length.');
  if (len(data['custom_id']) === 0 || len(data['custom_id']) > 100) throw invalid('modal custom_id');
  const rows = Array.isArray(data['components']) ? (data['components'] as Json[]) : [];
  if (rows.length === 0 || rows.length > 5) throw invalid('components: Must be between 1 and 5 in length.');
  const inputs = rows.map((row) => {
    const items = Array.isArray(row['components']) ? (row['components'] as Json[]) : [];
    const input = items[0];
    if (row['type'] !== 1 || items.length !== 1 || input === undefined || input['type'] !== 4)
      throw invalid('a modal row holds exactly one text input');
    if (len(input['label']) === 0 || len(input['label']) > 45) throw invalid('label: Must be 45 or fewer in length.');
    if (len(input['placeholder']) > 100) throw invalid('placeholder: Must be 100 or fewer in length.');
    if (input['style'] !== 1 && input['style'] !== 2) throw invalid('style: 1 (short) or 2 (paragraph)');
    for (const k of ['min_length', 'max_length'])
      if (input[k] !== undefined && (typeof input[k] !== 'number' || (input[k] as number) > 4000))
        throw invalid(`${k}: Must be 4000 or less.`);
    // "value: Pre-filled value for this component; max 4000 characters" (Message Components, Text Inputs).
    if (input['value'] !== undefined && (typeof input['value'] !== 'string' || len(input['value']) > 4000))
      throw invalid('value: Must be 4000 or fewer in length.');
    return input;
  });
  return { customId: data['custom_id'] as string, title: data['title'] as string, inputs };
}

/** Discord's deadlines (see the file's comment). */
export const FIRST_RESPONSE_MS = 3000;
export const TOKEN_LIFETIME_MS = 15 * 60 * 1000;

export async function startFakeDiscord(options: { now?: () => number } = {}): Promise<FakeDiscord> {
  const now = options.now ?? Date.now;
  const followUps: Array<{ token: string; content: string }> = [];
  const keys = generateKeyPairSync('ed25519');
  const stranger = generateKeyPairSync('ed25519');
  const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  const calls: FakeDiscord['calls'] = [];
  const messages = new Map<string, FakeDiscordMessage>();
  const unknownChannels = new Set<string>();
  /** User id → the bot's DM channel with them. */
  const dms = new Map<string, string>();
  const limited: number[] = [];
  /** Interaction token → whether it was answered, and what the answer did. */
  const tokens = new Map<
    string,
    { answered: boolean; message: FakeDiscordMessage | null; user: FakeUser; createdAt: number }
  >();
  let snowflake = 1_300_000_000_000_100_000n;
  const nextId = (): string => String(++snowflake);
  let gateway = '';

  /** Applies an interaction response as Discord would; returns what the person now sees. */
  const apply = (token: string, body: Json): Pick<InteractionOutcome, 'modal' | 'ephemeral'> => {
    const it = tokens.get(token);
    if (it === undefined) throw new Refusal(404, 10062, 'Unknown interaction');
    if (it.answered) throw new Refusal(400, 40060, 'Interaction has already been acknowledged.');
    // Past 3 s the token is invalidated: the response is refused, and nothing can answer the interaction any more.
    if (now() - it.createdAt > FIRST_RESPONSE_MS) {
      tokens.delete(token);
      throw new Refusal(404, 10062, 'Unknown interaction');
    }
    const data = (body['data'] ?? {}) as Json;
    const done = { modal: null, ephemeral: null };
    switch (body['type']) {
      case 1:
      case 5: // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "loading…", the message follows over the webhook
      case 6:
        break;
      case 4: {
        const { content, components } = checkMessage(data);
        it.answered = true;
        if ((Number(data['flags'] ?? 0) & 64) !== 0) return { ...done, ephemeral: content };
        // Not ephemeral: a message in the channel, for everyone.
        const channelId = it.message?.channelId ?? 'dm';
        const id = nextId();
        messages.set(`${channelId}:${id}`, { id, channelId, content, components, replyTo: null, history: [content] });
        return done;
      }
      case 7: {
        if (it.message === null) throw invalid('UPDATE_MESSAGE needs a message component interaction');
        const { content, components } = checkMessage(data);
        Object.assign(it.message, { content, components });
        it.message.history.push(content);
        break;
      }
      case 9: {
        const m = checkModal(data);
        it.answered = true;
        return { ...done, modal: { ...m, message: it.message, user: it.user } };
      }
      default:
        throw invalid(`interaction callback type ${String(body['type'])}`);
    }
    it.answered = true;
    return done;
  };

  const rest = (method: string, path: string, body: Json): { status: number; body: unknown } => {
    let m = /^\/api\/v10\/channels\/(\d+)\/messages$/.exec(path);
    if (m !== null && method === 'POST') {
      const channelId = m[1] as string;
      if (unknownChannels.has(channelId)) throw new Refusal(404, 10003, 'Unknown Channel');
      const { content, components } = checkMessage(body);
      if (content === '' && components.length === 0) throw new Refusal(400, 50006, 'Cannot send an empty message');
      const ref = (body['message_reference'] ?? null) as Json | null;
      const message: FakeDiscordMessage = {
        id: nextId(),
        channelId,
        content,
        components,
        replyTo: ref === null ? null : String(ref['message_id']),
        history: [content],
      };
      messages.set(`${channelId}:${message.id}`, message);
      return { status: 200, body: { id: message.id, channel_id: channelId, content, components, type: 0 } };
    }
    if (path === '/api/v10/users/@me/channels' && method === 'POST') {
      const user = String(body['recipient_id'] ?? '');
      if (!/^\d+$/.test(user)) throw invalid(`recipient_id: Value "${user}" is not snowflake.`);
      const id = dms.get(user) ?? nextId();
      dms.set(user, id);
      return { status: 200, body: { id, type: 1, recipients: [{ id: user }] } };
    }
    m = /^\/api\/v10\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (m !== null && method === 'PATCH') {
      const message = messages.get(`${m[1]}:${m[2]}`);
      if (message === undefined) throw new Refusal(404, 10008, 'Unknown Message');
      const { content, components } = checkMessage({ content: message.content, ...body });
      Object.assign(message, {
        content,
        components: body['components'] === undefined ? message.components : components,
      });
      message.history.push(content);
      return { status: 200, body: { id: message.id, channel_id: message.channelId, content } };
    }
    m = /^\/api\/v10\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (m !== null && method === 'POST') {
      apply(decodeURIComponent(m[2] as string), body);
      return { status: 204, body: null };
    }
    m = /^\/api\/v10\/webhooks\/(\d+)\/([^/]+)(\/messages\/@original)?$/.exec(path);
    if (m !== null) {
      // Follow-ups: only on an acknowledged interaction's token, within its 15 minutes.
      const it = tokens.get(decodeURIComponent(m[2] as string));
      if (m[1] !== APPLICATION_ID || it === undefined || !it.answered || now() - it.createdAt > TOKEN_LIFETIME_MS)
        throw new Refusal(401, 50027, 'Invalid Webhook Token');
      const { content } = checkMessage(body);
      if (method === 'POST' && m[3] === undefined) {
        followUps.push({ token: decodeURIComponent(m[2] as string), content });
        return { status: 200, body: { id: nextId(), content, type: 0 } };
      }
      if (method === 'PATCH' && m[3] !== undefined) return { status: 200, body: { id: nextId(), content } };
    }
    throw new Refusal(404, 0, '404: Not Found');
  };

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    // A 204 carries no body, and so no content type (a client would try to read JSON from it).
    res.writeHead(status, body === null ? headers : { 'content-type': 'application/json', ...headers });
    res.end(body === null ? undefined : JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = (raw === '' ? {} : JSON.parse(raw)) as Json;
    const method = req.method ?? 'GET';
    const path = (req.url ?? '').split('?')[0] ?? '';
    const record = (status: number): void => void calls.push({ method, path, body, status });
    // Interaction callbacks and follow-ups are authorised by the interaction token in their path, not the bot's.
    const byToken = path.includes('/interactions/') || path.startsWith('/api/v10/webhooks/');
    if (req.headers.authorization !== `Bot ${DISCORD_BOT_TOKEN}` && !byToken) {
      record(401);
      return reply(res, 401, { message: '401: Unauthorized', code: 0 });
    }
    const wait = limited.shift();
    if (wait !== undefined) {
      record(429);
      return reply(
        res,
        429,
        { message: 'You are being rate limited.', retry_after: wait, global: false },
        {
          'retry-after': String(Math.ceil(wait)),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(wait),
          'x-ratelimit-bucket': 'fakebucket',
          'x-ratelimit-scope': 'user',
        },
      );
    }
    try {
      const out = rest(method, path, body);
      record(out.status);
      reply(res, out.status, out.body, {
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset-after': '1.000',
        'x-ratelimit-bucket': 'fakebucket',
      });
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      record(err.status);
      reply(res, err.status, { message: err.message, code: err.code });
    }
  };

  const faults = connectionFaults();
  const server: Server = createServer((req, res) => {
    if (faults.intercept(req)) return;
    handle(req, res).catch((err: unknown) => reply(res, 500, { message: String(err), code: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  /** The last interaction sent (its exact body and token), for a redelivery. */
  let last: { body: string; token: string } | null = null;

  /** Signs and posts one interaction body, then applies the response. */
  const post = async (body: string, token: string, options: SendOptions): Promise<InteractionOutcome> => {
    const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
    const key = options.signature === 'wrong' ? stranger.privateKey : keys.privateKey;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.signature !== 'missing') {
      headers['x-signature-ed25519'] = sign(null, Buffer.from(timestamp + body), key).toString('hex');
      headers['x-signature-timestamp'] = timestamp;
    }
    const res = await fetch(`${gateway}/channels/discord/interactions`, { method: 'POST', headers, body });
    const text = await res.text();
    const response = res.ok && text !== '' ? (JSON.parse(text) as Json) : null;
    const outcome: InteractionOutcome = { status: res.status, response, modal: null, ephemeral: null, refused: null };
    if (response === null) return outcome;
    try {
      return { ...outcome, ...apply(token, response) };
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      return { ...outcome, refused: err.message };
    }
  };

  /** Builds one interaction (a fresh id and token), then signs and posts it. */
  const send = (
    payload: Json,
    ctx: { message: FakeDiscordMessage | null; user: FakeUser },
    options: SendOptions = {},
  ): Promise<InteractionOutcome> => {
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, { answered: false, createdAt: now(), ...ctx });
    const body = JSON.stringify({
      id: nextId(),
      application_id: APPLICATION_ID,
      token,
      version: 1,
      locale: 'en-US',
      ...payload,
    });
    last = { body, token };
    return post(body, token, options);
  };

  const person = (user: FakeUser): Json => ({
    guild_id: '1300000000000000007',
    member: { user: { ...user, discriminator: '0' }, roles: [], permissions: '0' },
  });
  const messageJson = (m: FakeDiscordMessage): Json => ({
    id: m.id,
    channel_id: m.channelId,
    content: m.content,
    components: m.components,
    author: { id: APPLICATION_ID, username: 'askgate', bot: true },
  });

  return {
    faults,
    apiUrl: `http://127.0.0.1:${port}/api`,
    botToken: DISCORD_BOT_TOKEN,
    applicationId: APPLICATION_ID,
    publicKey,
    calls,
    message: (channelId, id) => messages.get(`${channelId}:${id}`),
    messagesIn: (channelId) => [...messages.values()].filter((m) => m.channelId === channelId),
    tooManyRequests(retryAfter, times = 1) {
      for (let i = 0; i < times; i++) limited.push(retryAfter);
    },
    dmWith: (userId) => dms.get(userId),
    followUps,
    mintInteraction() {
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { answered: false, createdAt: now(), message: null, user: ADA });
      return { id: nextId(), token };
    },
    forgetChannel: (channelId) => void unknownChannels.add(channelId),
    useGateway(url) {
      gateway = url;
    },
    ping: (options) => send({ type: 1 }, { message: null, user: ADA }, options),
    redeliver() {
      if (last === null) throw new Error('no interaction was sent yet');
      const entry = tokens.get(last.token);
      // A copy of the same interaction, freshly signed: its token is still unanswered, as Discord would see it.
      if (entry !== undefined) tokens.set(last.token, { ...entry, answered: false });
      return post(last.body, last.token, {});
    },
    click(message, customId, options = {}) {
      const user = options.user ?? ADA;
      const values = options.values;
      return send(
        {
          type: 3,
          channel_id: message.channelId,
          channel: { id: message.channelId, type: 0 },
          message: messageJson(message),
          data:
            values === undefined
              ? { custom_id: customId, component_type: 2 }
              : { custom_id: customId, component_type: 3, values },
          ...person(user),
        },
        { message, user },
        options,
      );
    },
    submit(modal, values, options = {}) {
      const channelId = modal.message?.channelId ?? '1300000000000000009';
      return send(
        {
          type: 5,
          channel_id: channelId,
          channel: { id: channelId, type: 0 },
          ...(modal.message === null ? {} : { message: messageJson(modal.message) }),
          data: {
            custom_id: modal.customId,
            components: Object.entries(values).map(([custom_id, value]) => ({
              type: 1,
              components: [{ type: 4, custom_id, value }],
            })),
          },
          ...person(modal.user),
        },
        { message: modal.message, user: modal.user },
        options,
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
