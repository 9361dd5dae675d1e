import { runChannelContract, threadedAsks, type SentQuestion } from './contract-suite.js';
import { bodyOf, controlsOf, freshNumber, startWhatsAppWorld } from './whatsapp-harness.js';
import type { SentMessage } from '../fakes/whatsapp-graph.js';
import { textReply } from '../fakes/whatsapp-webhooks.js';

/**
 * WhatsApp cannot edit a sent message: the outcome is a note quoting the question. So what the person sees of a
 * question is the thread — the question, then any note quoting it — and once a note has ended it, its buttons no
 * longer answer anything (a late tap is told the question is closed): the harness counts them as gone.
 */
runChannelContract('whatsapp', async () => {
  const w = await startWhatsAppWorld();
  const notes = (q: SentQuestion<SentMessage>): SentMessage[] =>
    w.fake
      .sentTo(q.to)
      .filter((m) => (m.payload['context'] as { message_id?: string } | undefined)?.message_id === q.message.id);
  const { ask, sent } = threadedAsks((body) => w.ask(body), notes, bodyOf, controlsOf);
  return {
    channel: 'whatsapp',
    gateway: w.gw.gateway,
    http: w.http,
    maxTextLength: 4096,
    ask,
    failingAsk() {
      const to = freshNumber();
      w.fake.outsideWindow(to);
      return { recipient: `+${to}` };
    },
    reply: (q, text) => {
      const { message, to } = sent(q.id);
      return w.send(textReply(to, text, message.id));
    },
    replyUnsigned: (q, text) => {
      const { message, to } = sent(q.id);
      return w.send(textReply(to, text, message.id), `sha256=${'0'.repeat(64)}`);
    },
    async outcomeShown(q) {
      const { message, to } = sent(q.id);
      await w.replyTo(to, message.id);
    },
    threadReplies: async (q) => notes(sent(q.id)).map(bodyOf),
    close: () => w.close(),
  };
});
