import { runChannelContract, threadedAsks, type SentQuestion } from './contract-suite.js';
import { freshPhone, startTwilioWorld, tagIn } from './twilio-harness.js';
import type { FakeSms } from '../fakes/twilio-server.js';

/**
 * SMS cannot be edited and has no buttons: a question's controls are the ways its text says to reply (YES/NO, the
 * numbered choices, "Reply with…"), and its outcome is a second SMS carrying the same [#tag]; once that arrived the
 * question takes no more answers, so the harness counts its controls as gone.
 */
runChannelContract('twilio', async () => {
  // No receipts: the suite reads the status a quoted question has before any.
  const w = await startTwilioWorld({ statusCallbacks: false });
  const later = (q: SentQuestion<FakeSms>): FakeSms[] =>
    w.fake.sentTo(q.to).filter((m) => m.sid !== q.message.sid && m.body.startsWith(q.message.body.slice(0, 7)));
  const controls = (body: string): number => {
    if (/Reply YES or NO/.test(body)) return 2;
    const numbered = (body.match(/^\d+\. /gm) ?? []).length;
    return numbered > 0 ? numbered : /Reply with/.test(body) ? 1 : 0;
  };
  const { ask, sent } = threadedAsks(
    (body) => w.ask(body),
    later,
    (m) => m.body,
    (m) => controls(m.body),
  );
  return {
    channel: 'twilio',
    gateway: w.gw.gateway,
    http: w.http,
    maxTextLength: 1600,
    ask,
    failingAsk() {
      const to = freshPhone();
      w.fake.optOut(to);
      return { recipient: to };
    },
    // An SMS quotes nothing: a reply "to" a question is one that starts with its #tag.
    reply: async (q, text) => (await w.text(sent(q.id).to, `${tagIn(sent(q.id).message.body)} ${text}`)).status,
    replyUnsigned: async (q, text) => (await w.text(sent(q.id).to, text, {}, 'bm90LWEtc2lnbmF0dXJl')).status,
    async outcomeShown(q) {
      const entry = sent(q.id);
      for (let i = 0; i < 250 && !later(entry).some((m) => /Approved by/.test(m.body)); i++)
        await new Promise((r) => setTimeout(r, 20));
    },
    threadReplies: async (q) => later(sent(q.id)).map((m) => m.body),
    close: () => w.close(),
  };
});
