import { runChannelContract, type Delivered } from './contract-suite.js';
import { controls, freshChannel, startSlackWorld } from './slack-harness.js';
import { threadReply } from '../fakes/slack-payloads.js';
import type { FakeSlackMessage } from '../fakes/slack-server.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** The text of the message's section and context blocks: what a person reads. */
function readable(message: FakeSlackMessage): string {
  return message.blocks
    .flatMap((b) =>
      b['type'] === 'section' ? [b['text']] : b['type'] === 'context' ? (b['elements'] as unknown[]) : [],
    )
    .map((t) => String((t as Record<string, unknown>)['text']))
    .join('\n');
}

/** The contract on both stores: on Redis, thread replies find their question through the delivery index. */
for (const storeKind of ['memory', 'redis'] as const) {
  let redis: RedisServerHandle | null = null;
  runChannelContract(`slack (${storeKind} store)`, async () => {
    if (storeKind === 'redis') redis = await startRedisServer();
    const w = await startSlackWorld(
      redis === null ? {} : { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{sl${Date.now()}}:` },
    );
    const messages = new Map<string, FakeSlackMessage>();
    return {
      channel: 'slack',
      gateway: w.gw.gateway,
      http: w.http,
      // What the person reads is the question's section (≤ 3000) and its context line (≤ 3000).
      maxTextLength: 6000,
      async ask(body) {
        const { id, message } = await w.ask(body);
        messages.set(id, message);
        return { id, text: () => readable(message), controls: () => controls(message) } satisfies Delivered;
      },
      failingAsk() {
        const channel = freshChannel();
        w.fake.forgetChannel(channel);
        return { recipient: channel };
      },
      async reply(q, text) {
        // Slack events are acknowledged before they are processed; the platform "has its answer" once it is stored.
        const { status } = await w.event(threadReply(messages.get(q.id) as FakeSlackMessage, text));
        if (status === 200) await w.eventually(async () => (await w.gw.gateway.store.get(q.id))?.status !== 'pending');
        return status;
      },
      replyUnsigned: async (q, text) =>
        (await w.event(threadReply(messages.get(q.id) as FakeSlackMessage, text), { signature: 'v0=deadbeef' })).status,
      async outcomeShown(q) {
        await w.edited(messages.get(q.id) as FakeSlackMessage);
      },
      async threadReplies(q) {
        const m = messages.get(q.id) as FakeSlackMessage;
        return w.fake
          .callsTo('chat.postMessage')
          .filter((c) => c.args['channel'] === m.channel && c.args['thread_ts'] === m.ts)
          .map((c) => String(c.args['text']));
      },
      async close() {
        await w.close();
        await redis?.stop();
      },
    };
  });
}
