import { runChannelContract, type Delivered } from './contract-suite.js';
import { freshPhone, startTwilioWorld } from './twilio-harness.js';
import type { FakeSms } from '../fakes/twilio-server.js';

/**
 * SMS cannot be edited and has no buttons: a question's controls are the ways its text says to reply (YES/NO, the
 * numbered choices, "Reply with…"), and its outcome is a second SMS carrying the same [#tag]; once that arrived the
 * question takes no more answers, so the harness counts its controls as gone.
 */
runChannelContract('twilio', async () => {
  const w = await startTwilioWorld();
  const asked = new Map<string, { message: FakeSms; to: string }>();
  const later = (q: { message: FakeSms; to: string }): FakeSms[] => w.fake.sentTo(q.to).filter((m) => m.sid !== q.message.sid && m.body.startsWith(q.message.body.slice(0, 7)));
  const controls = (body: string): number => {
    if (/Reply YES or NO/.test(body)) return 2;
    const numbered = (body.match(/^\d+\. /gm) ?? []).length;
    return numbered > 0 ? numbered : /Reply with/.test(body) ? 1 : 0;
  };
  return {
    channel: 'twilio',
    gateway: w.gw.gateway,
    http: w.http,
    maxTextLength: 1600,
    async ask(body) {
      const { id, message, to } = await w.ask(body);
      const q = { message, to };
      asked.set(id, q);
      const ended = (): boolean => later(q).some((m) => /Answered|Expired|Cancelled/.test(m.body));
      return { id, text: () => [message.body, ...later(q).map((m) => m.body)].join('\n'), controls: () => (ended() ? 0 : controls(message.body)) } satisfies Delivered;
    },
    failingAsk() {
      const to = freshPhone();
      w.fake.optOut(to);
      return { recipient: to };
    },
    reply: async (q, text) => (await w.text(asked.get(q.id)!.to, text)).status,
    replyUnsigned: async (q, text) => (await w.text(asked.get(q.id)!.to, text, {}, 'bm90LWEtc2lnbmF0dXJl')).status,
    async outcomeShown(q) {
      const entry = asked.get(q.id)!;
      for (let i = 0; i < 250 && !later(entry).some((m) => /Answered/.test(m.body)); i++) await new Promise((r) => setTimeout(r, 20));
    },
    close: () => w.close(),
  };
});
