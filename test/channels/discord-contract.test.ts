import { runChannelContract, type Delivered } from './contract-suite.js';
import { buttonId, controlsOf, freshChannel, modalOf, startDiscordWorld } from './discord-harness.js';
import type { FakeDiscordMessage } from '../fakes/discord-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * Discord has no typed replies to a bot over HTTP interactions (messages reach bots over the Gateway websocket
 * only), so "the person replies" is the question's own control: "yes"/"no" is a click on that button, any other
 * text is typed into the modal the "Answer" button opens. Either way it is a signed interaction.
 */
for (const storeKind of ['memory', 'redis'] as const) {
  let redis: RedisServerHandle | null = null;
  runChannelContract(`discord (${storeKind} store)`, async () => {
    if (storeKind === 'redis') redis = await startRedisServer();
    const w = await startDiscordWorld(
      redis === null ? {} : { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{dc${Date.now()}}:` },
    );
    const messages = new Map<string, FakeDiscordMessage>();
    const answerBy = async (q: Delivered, text: string, signature?: 'missing' | 'wrong'): Promise<number> => {
      const message = messages.get(q.id) as FakeDiscordMessage;
      const label = text === 'yes' ? 'Yes' : text === 'no' ? 'No' : null;
      // A button the message no longer carries cannot be clicked: Discord sends nothing (status 0: nothing sent).
      if (label !== null && !controlsOf(message).some((c) => c['label'] === label)) return 0;
      if (label !== null) return (await w.fake.click(message, buttonId(message, label), { signature })).status;
      const modal = modalOf(await w.fake.click(message, buttonId(message, 'Answer')));
      return (await w.fake.submit(modal, { answer: text }, { signature })).status;
    };
    return {
      channel: 'discord',
      gateway: w.gw.gateway,
      http: w.http,
      maxTextLength: 2000,
      async ask(body) {
        const { id, message } = await w.ask(body);
        messages.set(id, message);
        return { id, text: () => message.content, controls: () => controlsOf(message).length } satisfies Delivered;
      },
      failingAsk() {
        const channel = freshChannel();
        w.fake.forgetChannel(channel);
        return { recipient: channel };
      },
      reply: (q, text) => answerBy(q, text),
      replyUnsigned: (q, text) => answerBy(q, text, 'wrong'),
      async outcomeShown(q) {
        await w.edited(messages.get(q.id) as FakeDiscordMessage);
      },
      async threadReplies(q) {
        const m = messages.get(q.id) as FakeDiscordMessage;
        return w.fake
          .messagesIn(m.channelId)
          .filter((r) => r.replyTo === m.id)
          .map((r) => r.content);
      },
      async close() {
        await w.close();
        await redis?.stop();
      },
    };
  });
}
