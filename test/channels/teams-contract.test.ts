import { runChannelContract, type Delivered } from './contract-suite.js';
import { freshConversation, startTeamsWorld } from './teams-harness.js';
import { controlsOf, wordsOf, type FakeTeamsMessage } from '../fakes/teams-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * Teams against the channel contract, on both stores. "The person replies" is a Teams reply to the question message
 * (`replyToId`), signed as the Bot Framework signs it; an unsigned reply carries a token from a key the JWKS never
 * published.
 */
for (const storeKind of ['memory', 'redis'] as const) {
  let redis: RedisServerHandle | null = null;
  runChannelContract(`teams (${storeKind} store)`, async () => {
    if (storeKind === 'redis') redis = await startRedisServer();
    const w = await startTeamsWorld(
      redis === null ? {} : { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{tm${Date.now()}}:` },
    );
    // A conversation askgate has seen, but the bot was removed from it since: the connector answers 404 there.
    const removed = freshConversation();
    await w.fake.install(removed);
    w.fake.uninstall(removed);
    const asked = new Map<string, FakeTeamsMessage>();
    const messageOf = (q: Delivered): FakeTeamsMessage => asked.get(q.id) as FakeTeamsMessage;
    return {
      channel: 'teams',
      gateway: w.gw.gateway,
      http: w.http,
      // 40 KB of UTF-16: the message size Teams takes.
      maxTextLength: 20 * 1024,
      async ask(body) {
        const { id, message } = await w.ask(body);
        asked.set(id, message);
        return { id, text: () => wordsOf(message), controls: () => controlsOf(message).length } satisfies Delivered;
      },
      failingAsk: () => ({ recipient: removed }),
      async reply(q, text) {
        const m = messageOf(q);
        return (await w.fake.say(m.conversationId, text, { replyToId: m.id })).status;
      },
      async replyUnsigned(q, text) {
        const m = messageOf(q);
        return (await w.fake.say(m.conversationId, text, { replyToId: m.id, sign: { key: 'stranger' } })).status;
      },
      async outcomeShown(q) {
        await w.edited(messageOf(q));
      },
      async threadReplies(q) {
        const m = messageOf(q);
        return w.fake
          .messagesIn(m.conversationId)
          .filter((r) => r.replyToId === m.id)
          .map((r) => String(r.activity['text'] ?? ''));
      },
      async close() {
        await w.close();
        await redis?.stop();
      },
    };
  });
}
