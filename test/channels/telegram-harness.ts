import {
  FAKE_BOT_TOKEN,
  startFakeTelegram,
  type FakeMessage,
  type FakeTelegram,
  type FakeTelegramOptions,
} from '../fakes/telegram-server.js';
import { postUpdate } from '../fakes/telegram-updates.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

export const WEBHOOK_SECRET = 'tg-webhook-secret_0123456789';
export const BOT_TOKEN = FAKE_BOT_TOKEN;

export interface TelegramWorld extends PlatformWorld<FakeTelegram> {
  /** Asks on Telegram; returns the interaction id and the message the fake received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeMessage; callbackUrl: string }>;
  send(update: unknown, secret?: string | null): Promise<number>;
  /** Waits until the question message has been edited away from its first text. */
  edited(message: FakeMessage): Promise<FakeMessage>;
}

let chatSeq = 5_000_000;
/** A fresh private chat per test keeps the per-chat pacing of one test from slowing the next. */
export const freshChat = (): string => String(++chatSeq);

export async function startTelegramWorld(
  env: Record<string, string> = {},
  fakeOptions: FakeTelegramOptions = {},
): Promise<TelegramWorld> {
  const fake = await startFakeTelegram(fakeOptions);
  const world = await startPlatformWorld(fake, {
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_API_ROOT: fake.apiRoot,
    // Telegram takes https web_app URLs only; nothing here fetches the callback pages.
    INTERACTIONS_PUBLIC_BASE_URL: env['INTERACTIONS_PUBLIC_BASE_URL'] ?? 'https://askgate.example.com',
    ...env,
  });
  return {
    ...world,
    ask: (body) =>
      world.askDelivered({ channel: 'telegram', ...body }, (delivery) =>
        fake.message(delivery['chat_id'] ?? '', delivery['message_id'] ?? ''),
      ),
    send: (update, secret = WEBHOOK_SECRET) => postUpdate(world.gw.url, secret, update),
    async edited(message) {
      const deadline = Date.now() + 15_000; // a margin a loaded two-core host keeps
      while (message.history.length < 2) {
        if (Date.now() > deadline) throw new Error(`message ${message.message_id} was never edited`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return message;
    },
  };
}
