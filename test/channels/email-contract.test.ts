import { runChannelContract, threadedAsks } from './contract-suite.js';
import { freshAddress, startEmailWorld } from './email-harness.js';
import type { ReceivedMail } from '../fakes/smtp-server.js';

/**
 * Email cannot edit a sent message: a question's controls are the buttons (action links, a form link) of the
 * newest message in its thread, and its outcome is a further message answering its Message-ID; once that arrived
 * it carries no buttons, so the harness counts the controls as gone. Replies are Gmail's, signed as a relay signs.
 */
runChannelContract('email', async () => {
  const w = await startEmailWorld();
  const { ask, sent } = threadedAsks(
    (body) => w.ask(body),
    (q) => w.thread(q.message.messageId),
    (m: ReceivedMail) => m.text,
    (m: ReceivedMail) => w.links(m).length,
  );
  return {
    channel: 'email',
    gateway: w.gw.gateway,
    http: w.http,
    // Email sets no length of its own: this bounds what askgate writes for the longest question (4096) and its links.
    maxTextLength: 16_384,
    ask,
    failingAsk() {
      const to = freshAddress();
      w.fake.reject(to);
      return { recipient: to };
    },
    reply: async (q, text) => (await w.inbound(w.gmail(sent(q.id), text))).status,
    replyUnsigned: async (q, text) => (await w.inbound(w.gmail(sent(q.id), text), `sha256=${'0'.repeat(64)}`)).status,
    async outcomeShown(q) {
      const { message } = sent(q.id);
      for (let i = 0; i < 250 && !w.thread(message.messageId).some((m) => /Approved by/.test(m.text)); i++)
        await new Promise((r) => setTimeout(r, 20));
    },
    threadReplies: async (q) => w.thread(sent(q.id).message.messageId).map((m) => m.text),
    close: () => w.close(),
  };
});
