import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramChannel } from '../../channels/telegram/plugin.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { BOT_TOKEN, WEBHOOK_SECRET, freshChat } from './telegram-harness.js';

/**
 * A send after a long quiet spell is not written on a connection the Bot API is closing as idle
 * (channels/telegram/transport.ts). The fake is a Node HTTP server: it announces `Keep-Alive: timeout=5` and closes
 * an idle connection about 6 s after its last answer (measured here: a write 5.8 s after went through, one 6.1 s
 * after was reset). A request written on such a connection as the server closes it fails with ECONNRESET, and
 * Telegram may or may not have read it, so askgate does not send it again: reminders 6 s apart on the test clock
 * lost one now and then that way.
 *
 * The collision is made, not waited for: the process is kept busy from 4.9 s to 6.5 s after the first answer (as a
 * starved process is), and the next send is written as soon as it is free, before the server has read anything. The
 * server's idle close is due by then and runs first; a client that still holds the old connection writes on a closed
 * one. Ours closed it at 4 s (the server's hint less a second), which the timers run in order of, whatever the load.
 */

describe('Telegram: idle connections to the Bot API', () => {
  let fake: FakeTelegram;
  let channel: TelegramChannel;
  beforeAll(async () => {
    fake = await startFakeTelegram();
    channel = new TelegramChannel({ botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, apiRoot: fake.apiRoot });
  });
  afterAll(async () => {
    await channel?.stop();
    await fake?.close();
  });

  it('a send as the server closes the last idle connection goes out on a fresh one', async () => {
    const chat = freshChat();
    await channel.postReply({ recipient: chat }, 'before the quiet spell');
    const answeredAt = Date.now();
    const after = await new Promise<{ sent: Promise<unknown> }>((resolve) => {
      setTimeout(() => {
        while (Date.now() - answeredAt < 6_500) {
          // Busy: the process gets no turn until the server's idle close is due.
        }
        setImmediate(() => resolve({ sent: channel.postReply({ recipient: chat }, 'after the quiet spell') }));
      }, 4_900);
    });
    await expect(after.sent).resolves.toMatchObject({ chat_id: chat });
    expect(fake.messagesIn(chat).map((m) => m.text)).toEqual(['before the quiet spell', 'after the quiet spell']);
  }, 30_000);
});
