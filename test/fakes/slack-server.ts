import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Refusal, checkBlocks, checkView, type Json } from './slack-blocks.js';
import { connectionFaults, type ConnectionFaults } from './connection-faults.js';

/**
 * A loopback Slack Web API that the real WebClient talks to (`SLACK_API_URL`). It records every call, keeps the
 * messages and views it "made", answers in Slack's shapes (`{ok: true, ...}` / `{ok: false, error}` with HTTP 200,
 * and 429 + Retry-After for rate limits), and enforces what askgate must respect: a trigger_id is good for 3 s and
 * once (expired_trigger_id, exchanged_trigger_id), views.update checks the view hash (hash_conflict), and block,
 * title, label and metadata limits are refused as Slack refuses them (invalid_blocks, invalid_arguments). Like
 * Slack it checks the whole bot token (invalid_auth), refuses `blocks` that are not an array
 * (invalid_blocks_format), a block_id used twice in one message or view or an action_id used twice in one block,
 * and text objects of the wrong type (plain_text only in headers, buttons, options, input labels and modal titles);
 * and chat.postEphemeral to a channel that does not exist fails (channel_not_found).
 *
 * The Block Kit limits are checked in slack-blocks.ts, each with the page of Slack's reference that states it.
 */

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** Set when the fake's own limits answered this call 429. */
  limited?: true;
}

export interface FakeSlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: Array<Record<string, unknown>>;
  thread_ts: string | null;
  /** Every text the message had, oldest first (updates append). */
  history: string[];
}

export interface FakeView {
  id: string;
  hash: string;
  view: Record<string, unknown>;
  /** Every view this modal showed, oldest first. */
  history: Array<Record<string, unknown>>;
}

export interface FakeSlack {
  /** Connection resets to play (test/fakes/connection-faults.ts). */
  readonly faults: ConnectionFaults;
  /** The API URL to give the WebClient, ending in `/`. */
  readonly apiUrl: string;
  readonly calls: SlackCall[];
  /** How many calls the fake's own limits (`startFakeSlack({limits})`) answered 429. */
  readonly rateLimited: number;
  callsTo(method: string): SlackCall[];
  message(channel: string, ts: string): FakeSlackMessage | undefined;
  messagesIn(channel: string): FakeSlackMessage[];
  view(id: string): FakeView | undefined;
  /** The modal views.open made with `triggerId`. */
  viewOpenedBy(triggerId: string): FakeView | undefined;
  /** A trigger_id as Slack puts in an interaction payload; `ageMs` backdates it (3000+ is expired). */
  mintTrigger(ageMs?: number): string;
  tooManyRequests(method: string, retryAfter: number, times?: number): void;
  /** The next `times` calls of `method` answer `{ok: false, error}`. */
  failNext(method: string, error: string, times?: number): void;
  /** A channel that does not exist (chat.postMessage: channel_not_found). */
  forgetChannel(channel: string): void;
  close(): Promise<void>;
}

export const BOT = { user_id: 'UASKGATEBOT', bot_id: 'BASKGATE', team_id: 'TASKGATE', user: 'askgate' };
const TRIGGER_TTL_MS = 3000;

/** The WebClient posts form-encoded arguments with objects (blocks, view) as JSON strings. */
function parseArgs(raw: string, contentType: string): Json {
  if (contentType.includes('application/json')) return raw === '' ? {} : (JSON.parse(raw) as Json);
  const args: Json = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    args[k] = /^[[{]/.test(v) ? (JSON.parse(v) as unknown) : v;
  }
  return args;
}

/** Slack's published limit, enforced by the fake when asked: chat.postMessage at most 1/s per channel. */
export interface FakeSlackLimits {
  /** The least gap between two accepted chat.postMessage calls into one channel, ms; a closer one is a 429. */
  perChannelGapMs: number;
  /**
   * A method's tier, workspace-wide: the least gap between two accepted calls of the method, ms (60 000 / its calls
   * per minute, less any slack the test allows); a closer one is a 429 with Retry-After 1.
   */
  methodGapMs?: Readonly<Record<string, number>>;
}

/** The bot token the fake accepts unless told another. */
export const FAKE_SLACK_TOKEN = 'xoxb-0000-test-token-for-the-fake';

export async function startFakeSlack(options: { limits?: FakeSlackLimits; token?: string } = {}): Promise<FakeSlack> {
  const token = options.token ?? FAKE_SLACK_TOKEN;
  const calls: SlackCall[] = [];
  /** Per channel: when its last chat.postMessage was accepted (only with `limits`). */
  const lastPost = new Map<string, number>();
  /** Per method with a tier in `limits.methodGapMs`: when its last call was accepted. */
  const lastOfMethod = new Map<string, number>();
  let rateLimited = 0;
  const messages = new Map<string, FakeSlackMessage>();
  const views = new Map<string, FakeView>();
  const triggers = new Map<string, { issuedAt: number; used: boolean; viewId?: string }>();
  const failures = new Map<string, Array<{ status: 429; retryAfter: number } | { error: string }>>();
  const unknownChannels = new Set<string>();
  let seq = 0;
  const nextTs = (): string => `${1_700_000_000 + seq}.${String(++seq).padStart(6, '0')}`;

  const find = (args: Json): FakeSlackMessage => {
    const m = messages.get(`${String(args['channel'])}:${String(args['ts'])}`);
    if (m === undefined) throw new Refusal('message_not_found');
    return m;
  };

  const openView = (view: Json): Json => {
    const id = `V${String(++seq).padStart(8, '0')}`;
    const hash = `${Date.now()}.h${seq}`;
    views.set(id, { id, hash, view, history: [view] });
    return { ok: true, view: { ...view, id, hash, state: { values: {} } } };
  };

  const handlers: Record<string, (args: Json) => Json> = {
    'auth.test': () => ({ ok: true, url: 'https://askgate-test.slack.com/', team: 'askgate test', ...BOT }),
    'chat.postMessage'(args) {
      let channel = String(args['channel'] ?? '');
      if (channel === '' || unknownChannels.has(channel)) throw new Refusal('channel_not_found');
      // A user id opens (or reuses) the app's DM with that user.
      if (channel.startsWith('U')) channel = `D${channel.slice(1)}`;
      const blocks = checkBlocks(args['blocks'], 50, 'message');
      if (typeof args['text'] !== 'string' && blocks.length === 0) throw new Refusal('no_text');
      const ts = nextTs();
      const body = String(args['text'] ?? '');
      const m: FakeSlackMessage = {
        channel,
        ts,
        text: body,
        blocks,
        thread_ts: typeof args['thread_ts'] === 'string' ? args['thread_ts'] : null,
        history: [body],
      };
      messages.set(`${channel}:${ts}`, m);
      return { ok: true, channel, ts, message: { type: 'message', text: body, ts, bot_id: BOT.bot_id, blocks } };
    },
    'chat.update'(args) {
      const m = find(args);
      m.blocks = checkBlocks(args['blocks'], 50, 'message');
      m.text = String(args['text'] ?? '');
      m.history.push(m.text);
      return { ok: true, channel: m.channel, ts: m.ts, text: m.text };
    },
    'chat.postEphemeral'(args) {
      const channel = String(args['channel'] ?? '');
      if (channel === '' || unknownChannels.has(channel)) throw new Refusal('channel_not_found');
      if (typeof args['user'] !== 'string') throw new Refusal('user_not_in_channel');
      return { ok: true, message_ts: nextTs() };
    },
    'views.open'(args) {
      const trigger = triggers.get(String(args['trigger_id']));
      if (trigger === undefined) throw new Refusal('invalid_trigger_id');
      if (Date.now() - trigger.issuedAt > TRIGGER_TTL_MS) throw new Refusal('expired_trigger_id');
      if (trigger.used) throw new Refusal('exchanged_trigger_id');
      trigger.used = true;
      const opened = openView(checkView(args['view']));
      trigger.viewId = (opened['view'] as Json)['id'] as string;
      return opened;
    },
    'views.update'(args) {
      const current = views.get(String(args['view_id']));
      if (current === undefined) throw new Refusal('not_found');
      if (typeof args['hash'] === 'string' && args['hash'] !== current.hash) throw new Refusal('hash_conflict');
      current.view = checkView(args['view']);
      current.hash = `${Date.now()}.h${++seq}`;
      current.history.push(current.view);
      return { ok: true, view: { ...current.view, id: current.id, hash: current.hash, state: { values: {} } } };
    },
  };

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const m = /^\/api\/([\w.]+)$/.exec(req.url ?? '');
    if (m === null) return reply(res, 404, { ok: false, error: 'unknown_method' });
    const method = m[1] as string;
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ')) return reply(res, 200, { ok: false, error: 'not_authed' });
    if (auth !== `Bearer ${token}`) return reply(res, 200, { ok: false, error: 'invalid_auth' });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const args = parseArgs(Buffer.concat(chunks).toString('utf8'), req.headers['content-type'] ?? '');
    calls.push({ method, args, at: Date.now() });
    const failure = failures.get(method)?.shift();
    if (failure !== undefined) {
      if ('retryAfter' in failure)
        return reply(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      return reply(res, 200, { ok: false, error: failure.error });
    }
    if (options.limits !== undefined && method === 'chat.postMessage') {
      const channel = String(args['channel'] ?? '');
      const now = Date.now();
      if (now - (lastPost.get(channel) ?? 0) < options.limits.perChannelGapMs) {
        rateLimited++;
        (calls[calls.length - 1] as SlackCall).limited = true;
        return reply(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
      }
      lastPost.set(channel, now);
    }
    const methodGap = options.limits?.methodGapMs?.[method];
    if (methodGap !== undefined) {
      const now = Date.now();
      if (now - (lastOfMethod.get(method) ?? 0) < methodGap) {
        rateLimited++;
        (calls[calls.length - 1] as SlackCall).limited = true;
        return reply(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
      }
      lastOfMethod.set(method, now);
    }
    const handler = handlers[method];
    if (handler === undefined) return reply(res, 200, { ok: false, error: 'unknown_method' });
    try {
      reply(res, 200, handler(args));
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      reply(res, 200, { ok: false, error: err.error });
    }
  };

  const faults = connectionFaults();
  const server: Server = createServer((req, res) => {
    if (faults.intercept(req)) return;
    handle(req, res).catch((err: unknown) => reply(res, 500, { ok: false, error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const queue = (
    method: string,
    item: { status: 429; retryAfter: number } | { error: string },
    times: number,
  ): void => {
    const list = failures.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(item);
    failures.set(method, list);
  };

  return {
    faults,
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    get rateLimited() {
      return rateLimited;
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    message: (channel, ts) => messages.get(`${channel}:${ts}`),
    messagesIn: (channel) => [...messages.values()].filter((x) => x.channel === channel),
    view: (id) => views.get(id),
    viewOpenedBy: (triggerId) => views.get(triggers.get(triggerId)?.viewId ?? ''),
    mintTrigger(ageMs = 0) {
      const id = `${++seq}.${Date.now()}.trigger${Math.random().toString(16).slice(2, 10)}`;
      triggers.set(id, { issuedAt: Date.now() - ageMs, used: false });
      return id;
    },
    tooManyRequests: (method, retryAfter, times = 1) => queue(method, { status: 429, retryAfter }, times),
    failNext: (method, error, times = 1) => queue(method, { error }, times),
    forgetChannel: (channel) => unknownChannels.add(channel),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
