import { expect } from 'vitest';
import { startFakeTelegram, type FakeMessage, type FakeTelegram } from '../fakes/telegram-server.js';
import { postUpdate } from '../fakes/telegram-updates.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

export const WEBHOOK_SECRET = 'tg-webhook-secret_0123456789';
export const BOT_TOKEN = '123456:TEST-token-for-the-fake';

export interface TelegramWorld {
  fake: FakeTelegram;
  gw: TestGateway;
  http: Api;
  /** Asks on Telegram; returns the interaction id and the message the fake received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeMessage; callbackUrl: string }>;
  send(update: unknown, secret?: string | null): Promise<number>;
  record(id: string): Promise<Record<string, unknown>>;
  /** Waits until the question message has been edited away from its first text. */
  edited(message: FakeMessage): Promise<FakeMessage>;
  close(): Promise<void>;
}

let chatSeq = 5_000_000;
/** A fresh private chat per test keeps the per-chat pacing of one test from slowing the next. */
export const freshChat = (): string => String(++chatSeq);

export async function startTelegramWorld(env: Record<string, string> = {}): Promise<TelegramWorld> {
  const fake = await startFakeTelegram();
  const gw = await startTestGateway({
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_API_ROOT: fake.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: env['INTERACTIONS_PUBLIC_BASE_URL'] ?? 'http://127.0.0.1:1',
    ...env,
  });
  const http = api(gw.url, gw.token);
  return {
    fake,
    gw,
    http,
    async ask(body) {
      const res = await http.post('/api/interactions', { channel: 'telegram', ...body });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      const id = res.json['id'] as string;
      const delivery = (await gw.gateway.store.get(id))?.delivery;
      const message = fake.message(delivery?.['chat_id'] ?? '', delivery?.['message_id'] ?? '');
      if (message === undefined) throw new Error(`interaction ${id} has no delivered message`);
      return { id, message, callbackUrl: res.json['callback_url'] as string };
    },
    send: (update, secret = WEBHOOK_SECRET) => postUpdate(gw.url, secret, update),
    async record(id) {
      return (await http.get(`/api/interactions/${id}`)).json;
    },
    async edited(message) {
      const deadline = Date.now() + 5000;
      while (message.history.length < 2) {
        if (Date.now() > deadline) throw new Error(`message ${message.message_id} was never edited`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return message;
    },
    async close() {
      await gw.close();
      await fake.close();
    },
  };
}
