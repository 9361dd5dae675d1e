import { runChannelContract, type Delivered } from './contract-suite.js';
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
  const asked = new Map<string, { message: SentMessage; to: string }>();
  const notes = (q: { message: SentMessage; to: string }): SentMessage[] =>
    w.fake.sentTo(q.to).filter((m) => (m.payload['context'] as { message_id?: string } | undefined)?.message_id === q.message.id);
  return {
    channel: 'whatsapp',
    gateway: w.gw.gateway,
    http: w.http,
    maxTextLength: 4096,
    async ask(body) {
      const { id, message, to } = await w.ask(body);
      const q = { message, to };
      asked.set(id, q);
      const ended = (): boolean => notes(q).some((n) => /Answered|Expired|Cancelled/.test(bodyOf(n)));
      return { id, text: () => [bodyOf(message), ...notes(q).map(bodyOf)].join('\n'), controls: () => (ended() ? 0 : controlsOf(message)) } satisfies Delivered;
    },
    failingAsk() {
      const to = freshNumber();
      w.fake.outsideWindow(to);
      return { recipient: `+${to}` };
    },
    reply: (q, text) => {
      const { message, to } = asked.get(q.id) as { message: SentMessage; to: string };
      return w.send(textReply(to, text, message.id));
    },
    replyUnsigned: (q, text) => {
      const { message, to } = asked.get(q.id) as { message: SentMessage; to: string };
      return w.send(textReply(to, text, message.id), 'sha256=' + '0'.repeat(64));
    },
    async outcomeShown(q) {
      const { message, to } = asked.get(q.id) as { message: SentMessage; to: string };
      await w.replyTo(to, message.id);
    },
    close: () => w.close(),
  };
});
