import { runChannelContract, type Delivered } from './contract-suite.js';
import { freshChat, startTelegramWorld } from './telegram-harness.js';
import { replyUpdate } from '../fakes/telegram-updates.js';
import type { FakeMessage } from '../fakes/telegram-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** The contract on both stores: on Redis, replies find their question through the `dl:` reverse index. */
for (const storeKind of ['memory', 'redis'] as const) {
  let redis: RedisServerHandle | null = null;
  runChannelContract(`telegram (${storeKind} store)`, async () => {
    if (storeKind === 'redis') redis = await startRedisServer();
    const w = await startTelegramWorld(
      redis === null ? {} : { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{tg${Date.now()}}:` },
    );
    const messages = new Map<string, FakeMessage>();
    const controls = (m: FakeMessage): number => {
      const markup = m.reply_markup;
      if (markup === null) return 0;
      if ('inline_keyboard' in markup) return (markup['inline_keyboard'] as unknown[][]).flat().length;
      return 'force_reply' in markup ? 1 : 0;
    };
    return {
      channel: 'telegram',
      gateway: w.gw.gateway,
      http: w.http,
      maxTextLength: 4096,
      async ask(body) {
        const { id, message } = await w.ask({ recipient: freshChat(), ...body });
        messages.set(id, message);
        return { id, text: () => message.text, controls: () => controls(message) } satisfies Delivered;
      },
      failingAsk() {
        const chat = freshChat();
        w.fake.forgetChat(chat);
        return { recipient: chat };
      },
      reply: (q, text) => w.send(replyUpdate(messages.get(q.id) as FakeMessage, { text })),
      replyUnsigned: (q, text) => w.send(replyUpdate(messages.get(q.id) as FakeMessage, { text }), 'wrong-secret'),
      async outcomeShown(q) {
        await w.edited(messages.get(q.id) as FakeMessage);
      },
      async threadReplies(q) {
        const m = messages.get(q.id) as FakeMessage;
        return w.fake
          .callsTo('sendMessage')
          .filter(
            (c) =>
              String(c.payload['chat_id']) === m.chat_id &&
              (c.payload['reply_parameters'] as { message_id?: number } | undefined)?.message_id === m.message_id,
          )
          .map((c) => String(c.payload['text']));
      },
      async close() {
        await w.close();
        await redis?.stop();
      },
    };
  });
}
