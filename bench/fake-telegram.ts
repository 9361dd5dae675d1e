import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback Bot API for the delivery benchmark that enforces Telegram's flood limits with 429s (retry_after 1) on
 * every call carrying a chat_id: a chat's message closer than `perChatGapMs` to its previous accepted one, or more
 * than `perWindow` accepted messages of the bot within `windowMs`. The numbers are those of the test fake
 * (test/fakes/telegram-server.ts, `FakeLimits`): 1 message/s per chat and 30/s in total, each with 100 ms of slack for
 * loopback jitter. bench/ cannot import test/ (it is not compiled into dist/), hence this small copy: only the
 * methods delivery uses, and counters instead of message bodies so 5,000 sends cost next to nothing.
 */

export interface TelegramLimits {
  perChatGapMs: number;
  perWindow: number;
  windowMs: number;
}

export const TELEGRAM_LIMITS: TelegramLimits = { perChatGapMs: 900, perWindow: 30, windowMs: 900 };

export interface LimitedTelegram {
  readonly apiRoot: string;
  /** Accepted sendMessage times (performance.now() of this process), in order. */
  readonly sent: number[];
  /** Calls refused with 429 by the limits. */
  tooMany(): number;
  /** Every call by method, accepted or not. */
  readonly calls: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

const BOT = { id: 777000111, is_bot: true, first_name: 'askgate', username: 'askgate_bench_bot' };

export async function startLimitedTelegram(limits: TelegramLimits = TELEGRAM_LIMITS): Promise<LimitedTelegram> {
  const sent: number[] = [];
  const calls = new Map<string, number>();
  const lastInChat = new Map<string, number>();
  let window: number[] = [];
  let refused = 0;
  let nextMessageId = 1000;

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const m = /^\/bot[^/]+\/(\w+)$/.exec(req.url ?? '');
    if (m === null) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const method = m[1] as string;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const payload = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const at = performance.now();
    if (payload['chat_id'] !== undefined) {
      const chat = String(payload['chat_id']);
      const last = lastInChat.get(chat);
      window = window.filter((t) => t > at - limits.windowMs);
      if ((last !== undefined && at - last < limits.perChatGapMs) || window.length >= limits.perWindow) {
        refused++;
        return reply(res, 429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
      }
      lastInChat.set(chat, at);
      window.push(at);
    }
    if (method === 'getMe') return reply(res, 200, { ok: true, result: BOT });
    if (method === 'sendMessage' || method === 'editMessageText') {
      if (method === 'sendMessage') sent.push(at);
      const chatId = Number(payload['chat_id']);
      const result = {
        message_id: method === 'sendMessage' ? nextMessageId++ : Number(payload['message_id']),
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: 'private', first_name: 'Person' },
        from: BOT,
        text: String(payload['text'] ?? ''),
      };
      return reply(res, 200, { ok: true, result });
    }
    return reply(res, 200, { ok: true, result: true });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => reply(res, 500, { ok: false, error_code: 500, description: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    sent,
    calls,
    tooMany: () => refused,
    reset() {
      sent.length = 0;
      calls.clear();
      refused = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
