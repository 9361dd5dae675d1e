import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionFaults, type ConnectionFaults } from './connection-faults.js';

/**
 * A loopback Telegram Bot API that the real grammY client talks to (`TELEGRAM_API_ROOT`). It records every call,
 * keeps the messages it "sent", answers with Telegram's shapes (`{ok: true, result}` / `{ok: false, error_code,
 * description, parameters?}`), and refuses what Telegram refuses: a token other than the bot's (401), a button with
 * no action or more than one (exactly one of callback_data, url, web_app...), callback_data outside 1..64 bytes, rows
 * wider than 8 buttons or keyboards over 100, web_app buttons outside private chats or on a URL that is not https
 * (loopback http only when the test says so), texts over 4096 characters, and an answerCallbackQuery for a query
 * it never issued (telegram-updates.ts issues them) or answered already. Failures can be injected per method: a 429
 * with retry_after, a 5xx, or any Telegram refusal. Its flood limits are on unless a test turns them off: it answers
 * 429 as Telegram does when a chat gets messages faster than about one a second, the bot sends more than about 30 a
 * second, or a group (a negative chat id) gets more than 20 a minute — the numbers of
 * https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this ("avoid sending more than one
 * message per second in a particular chat", "not more than 30 messages per second or so", "your bot will not be able
 * to send more than 20 messages per minute to the same group"). A message's `reply_parameters.message_id` must name a
 * message of that chat unless `allow_sending_without_reply` is true (https://core.telegram.org/bots/api#replyparameters).
 */

export interface FakeCall {
  method: string;
  payload: Record<string, unknown>;
  at: number;
  /** The HTTP status the fake answered (429 for an injected or a limit's Too Many Requests). */
  status: number;
}

/**
 * Telegram's flood limits as the fake enforces them, on calls that carry a chat_id (sends and edits: each puts a
 * message into the chat). https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this states them
 * as "about": the windows below keep 100 ms of slack for the jitter of loopback HTTP under test load.
 */
export interface FakeLimits {
  /**
   * A chat's message is refused when `perChatBurst` (default 1) of its messages were accepted in the last
   * `perChatGapMs`. Telegram: "avoid sending more than one message per second in a particular chat" — 1 in 900 ms.
   */
  perChatGapMs: number;
  perChatBurst?: number;
  /** More than `perWindow` accepted messages of the bot within `windowMs` are refused. 30/s: 30 in 900 ms. */
  perWindow: number;
  windowMs: number;
  /**
   * A group (negative chat id) takes at most `perGroup` messages within `groupWindowMs` (default 20 in 59 900 ms:
   * "your bot will not be able to send more than 20 messages per minute to the same group"); the 429's retry_after is
   * the wait until the oldest of them leaves the window, as Telegram's is the wait it asks for.
   */
  perGroup?: number;
  groupWindowMs?: number;
}

export interface FakeMessage {
  chat_id: string;
  message_id: number;
  text: string;
  reply_markup: Record<string, unknown> | null;
  /** Every text the message had, oldest first (edits append). */
  history: string[];
}

export interface InjectedFailure {
  status: number;
  error_code: number;
  description: string;
  retry_after?: number;
}

export interface FakeTelegram {
  /** Connection resets to play (test/fakes/connection-faults.ts). */
  readonly faults: ConnectionFaults;
  /** The API root to give grammY, e.g. `http://127.0.0.1:4321`. */
  readonly apiRoot: string;
  readonly calls: FakeCall[];
  callsTo(method: string): FakeCall[];
  message(chatId: string, messageId: number | string): FakeMessage | undefined;
  messagesIn(chatId: string): FakeMessage[];
  /** The next `times` calls of `method` fail with `failure`. */
  failNext(method: string, failure: InjectedFailure, times?: number): void;
  tooManyRequests(method: string, retryAfter: number, times?: number): void;
  /** A chat that does not exist (sendMessage: "chat not found"). */
  forgetChat(chatId: string): void;
  /**
   * Stops listening until acceptConnections: a connection attempt is refused (ECONNREFUSED), as when the Bot API is
   * unreachable, so a send fails before Telegram could have taken it. Idle kept-alive connections are closed too.
   */
  refuseConnections(): Promise<void>;
  /** Listens again on the same address. */
  acceptConnections(): Promise<void>;
  close(): Promise<void>;
}

export const BOT_USER = { id: 777000111, is_bot: true, first_name: 'askgate', username: 'askgate_test_bot' };

/**
 * The callback queries Telegram "sent" (telegram-updates.ts adds each tap's id): answerCallbackQuery accepts these
 * only. Module-wide, since a test builds its taps apart from the fake they are answered at.
 */
export const issuedCallbackQueries = new Set<string>();

/** The token the fake accepts unless told another. */
export const FAKE_BOT_TOKEN = '123456:TEST-token-for-the-fake';

/**
 * The limits on by default, as the FAQ states them (see FakeLimits): one message a second in a chat (no burst), 30 a
 * second for the bot, 20 a minute in a group, each judged on arrival with 100 ms of slack for loopback jitter.
 */
export const DEFAULT_FAKE_LIMITS: FakeLimits = {
  perChatGapMs: 900,
  perChatBurst: 1,
  perWindow: 30,
  windowMs: 900,
  perGroup: 20,
  groupWindowMs: 59_900,
};

export interface FakeTelegramOptions {
  /** Flood limits; `null` turns them off (a test about something else that must send faster). Default on. */
  limits?: FakeLimits | null;
  /** The bot token; calls under any other answer 401. Default {@link FAKE_BOT_TOKEN}. */
  token?: string;
  /** Accept web_app buttons on http://127.0.0.1 or http://localhost (a browser test's gateway). Default false. */
  allowLoopbackWebApp?: boolean;
}

const isPrivate = (chatId: string): boolean => /^\d+$/.test(chatId);
/**
 * Groups and supergroups have negative ids (https://core.telegram.org/bots/api#chat: "id ... may have more than 32
 * significant bits"; groups are negative).
 */
const isGroup = (chatId: string): boolean => /^-\d+$/.test(chatId);

class ApiRefusal extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
  ) {
    super(description);
  }
}

/** The fields of which an inline button must carry exactly one (Bot API, InlineKeyboardButton). */
const BUTTON_ACTIONS = [
  'url',
  'callback_data',
  'web_app',
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'copy_text',
  'callback_game',
  'pay',
];
const ROW_MAX = 8;

function checkMarkup(markup: unknown, chatId: string, allowLoopbackWebApp: boolean): void {
  if (markup === undefined || markup === null) return;
  const keyboard = (markup as { inline_keyboard?: unknown }).inline_keyboard;
  if (keyboard === undefined) return;
  if (!Array.isArray(keyboard) || keyboard.some((row) => !Array.isArray(row)))
    throw new ApiRefusal(400, "Bad Request: can't parse reply keyboard markup JSON object");
  let count = 0;
  for (const row of keyboard as unknown[][]) {
    if (row.length > ROW_MAX) throw new ApiRefusal(400, 'Bad Request: too many buttons in a row');
    for (const button of row as Record<string, unknown>[]) {
      count++;
      if (typeof button['text'] !== 'string' || button['text'] === '')
        throw new ApiRefusal(400, 'Bad Request: text buttons are unallowed in the inline keyboard');
      const actions = BUTTON_ACTIONS.filter((field) => button[field] !== undefined);
      if (actions.length !== 1)
        throw new ApiRefusal(
          400,
          actions.length === 0
            ? 'Bad Request: text buttons are unallowed in the inline keyboard'
            : "Bad Request: can't parse inline keyboard button: exactly one of the optional fields must be used",
        );
      const data = button['callback_data'];
      if (data !== undefined && (typeof data !== 'string' || Buffer.byteLength(data) > 64 || data.length === 0))
        throw new ApiRefusal(400, 'Bad Request: BUTTON_DATA_INVALID');
      const webApp = button['web_app'] as { url?: unknown } | undefined;
      if (webApp !== undefined) {
        if (!isPrivate(chatId)) throw new ApiRefusal(400, 'Bad Request: BUTTON_TYPE_INVALID');
        if (!webAppUrlAllowed(webApp.url, allowLoopbackWebApp))
          throw new ApiRefusal(
            400,
            `Bad Request: inline keyboard button Web App URL '${String(webApp.url)}' is invalid: Only HTTPS links are allowed`,
          );
      }
    }
  }
  if (count > 100) throw new ApiRefusal(400, 'Bad Request: REPLY_MARKUP_TOO_LONG');
}

function webAppUrlAllowed(url: unknown, allowLoopback: boolean): boolean {
  if (typeof url !== 'string') return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  return allowLoopback && parsed.protocol === 'http:' && ['127.0.0.1', 'localhost'].includes(parsed.hostname);
}

function checkText(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '') throw new ApiRefusal(400, 'Bad Request: message text is empty');
  if ([...text].length > 4096) throw new ApiRefusal(400, 'Bad Request: message is too long');
  return text;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? FAKE_BOT_TOKEN;
  const allowLoopbackWebApp = options.allowLoopbackWebApp ?? false;
  const limits = options.limits === undefined ? DEFAULT_FAKE_LIMITS : options.limits;
  const calls: FakeCall[] = [];
  /** Per chat, the times of its recently accepted messages. */
  const recentInChat = new Map<string, number[]>();
  /** Per group, the times of its accepted messages within the group window. */
  const recentInGroup = new Map<string, number[]>();
  const accepted: number[] = [];
  const answeredQueries = new Set<string>();
  /** Null when the call is within the limits (and counts it); otherwise the 429 Telegram would answer. */
  const overLimit = (payload: Record<string, unknown>, at: number): InjectedFailure | null => {
    if (limits === null || payload['chat_id'] === undefined) return null;
    const chat = String(payload['chat_id']);
    const recent = (recentInChat.get(chat) ?? []).filter((t) => at - t < limits.perChatGapMs);
    while (accepted.length > 0 && (accepted[0] as number) <= at - limits.windowMs) accepted.shift();
    const tooMany = (retryAfter: number): InjectedFailure => ({
      status: 429,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      retry_after: retryAfter,
    });
    if (recent.length >= (limits.perChatBurst ?? 1) || accepted.length >= limits.perWindow) return tooMany(1);
    const groupWindow = limits.groupWindowMs ?? 59_900;
    const inGroup = isGroup(chat) ? (recentInGroup.get(chat) ?? []).filter((t) => at - t < groupWindow) : null;
    if (inGroup !== null && inGroup.length >= (limits.perGroup ?? 20))
      return tooMany(Math.max(1, Math.ceil(((inGroup[0] as number) + groupWindow - at) / 1000)));
    recent.push(at);
    recentInChat.set(chat, recent);
    if (inGroup !== null) {
      inGroup.push(at);
      recentInGroup.set(chat, inGroup);
    }
    accepted.push(at);
    return null;
  };
  const messages = new Map<string, FakeMessage>();
  const nextId = new Map<string, number>();
  const failures = new Map<string, InjectedFailure[]>();
  const unknownChats = new Set<string>();

  const messageObject = (m: FakeMessage): Record<string, unknown> => ({
    message_id: m.message_id,
    date: Math.floor(Date.now() / 1000),
    chat: isPrivate(m.chat_id)
      ? { id: Number(m.chat_id), type: 'private', first_name: 'Person' }
      : { id: Number(m.chat_id), type: 'supergroup', title: 'Team' },
    from: BOT_USER,
    text: m.text,
    ...(m.reply_markup !== null && 'inline_keyboard' in m.reply_markup ? { reply_markup: m.reply_markup } : {}),
  });

  /**
   * https://core.telegram.org/bots/api#replyparameters: `message_id` is "identifier of the message that will be
   * replied to in the current chat"; unless `allow_sending_without_reply` is true, a missing one is refused.
   */
  const checkReply = (chatId: string, reply: unknown): void => {
    if (reply === undefined) return;
    if (
      typeof reply !== 'object' ||
      reply === null ||
      !Number.isInteger((reply as Record<string, unknown>)['message_id'])
    )
      throw new ApiRefusal(400, "Bad Request: can't parse reply parameters JSON object");
    const r = reply as { message_id: number; allow_sending_without_reply?: unknown; chat_id?: unknown };
    const inChat = r.chat_id === undefined ? chatId : String(r.chat_id);
    if (r.allow_sending_without_reply === true) return;
    if (!messages.has(`${inChat}:${r.message_id}`))
      throw new ApiRefusal(400, 'Bad Request: message to be replied not found');
  };

  const find = (payload: Record<string, unknown>): FakeMessage => {
    const m = messages.get(`${String(payload['chat_id'])}:${String(payload['message_id'])}`);
    if (m === undefined) throw new ApiRefusal(400, 'Bad Request: message to edit not found');
    return m;
  };

  const handlers: Record<string, (p: Record<string, unknown>) => unknown> = {
    getMe: () => BOT_USER,
    sendMessage(p) {
      const chatId = String(p['chat_id']);
      if (unknownChats.has(chatId)) throw new ApiRefusal(400, 'Bad Request: chat not found');
      const text = checkText(p['text']);
      checkMarkup(p['reply_markup'], chatId, allowLoopbackWebApp);
      checkReply(chatId, p['reply_parameters']);
      const id = (nextId.get(chatId) ?? 100) + 1;
      nextId.set(chatId, id);
      const m: FakeMessage = {
        chat_id: chatId,
        message_id: id,
        text,
        reply_markup: (p['reply_markup'] as Record<string, unknown>) ?? null,
        history: [text],
      };
      messages.set(`${chatId}:${id}`, m);
      return messageObject(m);
    },
    editMessageText(p) {
      const m = find(p);
      const text = checkText(p['text']);
      checkMarkup(p['reply_markup'], m.chat_id, allowLoopbackWebApp);
      const markup = (p['reply_markup'] as Record<string, unknown>) ?? null;
      if (text === m.text && JSON.stringify(markup) === JSON.stringify(m.reply_markup)) {
        throw new ApiRefusal(
          400,
          'Bad Request: message is not modified: specified new message content and reply markup are ' +
            'exactly the same as a current content and reply markup of the message',
        );
      }
      // Like Telegram: an edit without reply_markup removes the inline keyboard.
      m.text = text;
      m.reply_markup = markup;
      m.history.push(text);
      return messageObject(m);
    },
    editMessageReplyMarkup(p) {
      const m = find(p);
      checkMarkup(p['reply_markup'], m.chat_id, allowLoopbackWebApp);
      m.reply_markup = (p['reply_markup'] as Record<string, unknown>) ?? null;
      return messageObject(m);
    },
    answerCallbackQuery(p) {
      const id = p['callback_query_id'];
      // Telegram knows the queries it sent; one is answered once, and only within its time.
      if (typeof id !== 'string' || !issuedCallbackQueries.has(id) || answeredQueries.has(id))
        throw new ApiRefusal(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
      answeredQueries.add(id);
      if (typeof p['text'] === 'string' && [...p['text']].length > 200)
        throw new ApiRefusal(400, 'Bad Request: MESSAGE_TOO_LONG');
      return true;
    },
    setWebhook: () => true,
  };

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    if (m === null) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (decodeURIComponent(m[1] as string) !== token)
      return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = m[2] as string;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const payload = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
    const call: FakeCall = { method, payload, at: Date.now(), status: 200 };
    calls.push(call);
    const queued = failures.get(method);
    const failure = queued?.shift() ?? overLimit(payload, call.at);
    if (failure !== undefined && failure !== null) {
      call.status = failure.status;
      return reply(res, failure.status, {
        ok: false,
        error_code: failure.error_code,
        description: failure.description,
        ...(failure.retry_after === undefined ? {} : { parameters: { retry_after: failure.retry_after } }),
      });
    }
    const handler = handlers[method];
    if (handler === undefined)
      return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    try {
      reply(res, 200, { ok: true, result: handler(payload) });
    } catch (err) {
      if (!(err instanceof ApiRefusal)) throw err;
      call.status = err.code;
      reply(res, err.code, { ok: false, error_code: err.code, description: err.description });
    }
  };

  const faults = connectionFaults();
  const server: Server = createServer((req, res) => {
    if (faults.intercept(req)) return;
    handle(req, res).catch((err: unknown) => reply(res, 500, { ok: false, error_code: 500, description: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const failNext = (method: string, failure: InjectedFailure, times = 1): void => {
    const list = failures.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(failure);
    failures.set(method, list);
  };

  return {
    faults,
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    message: (chatId, messageId) => messages.get(`${chatId}:${messageId}`),
    messagesIn: (chatId) => [...messages.values()].filter((x) => x.chat_id === chatId),
    failNext,
    tooManyRequests(method, retryAfter, times = 1) {
      failNext(
        method,
        {
          status: 429,
          error_code: 429,
          description: `Too Many Requests: retry after ${retryAfter}`,
          retry_after: retryAfter,
        },
        times,
      );
    },
    forgetChat: (chatId) => unknownChats.add(chatId),
    refuseConnections: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    acceptConnections: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
