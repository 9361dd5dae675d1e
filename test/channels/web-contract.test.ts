import { runChannelContract, type Delivered } from './contract-suite.js';
import { freshRecipient, startWebWorld } from './web-harness.js';

runChannelContract('web', async () => {
  const w = await startWebWorld();
  const recipients = new Map<string, string>();
  const views = new Map<string, Record<string, unknown>>();
  const load = async (id: string): Promise<Record<string, unknown>> => {
    const view = (await w.chatAs(recipients.get(id) as string).get(`/chat/api/questions/${id}`)).json;
    views.set(id, view);
    return view;
  };
  return {
    channel: 'web',
    gateway: w.gw.gateway,
    http: w.http,
    // The chat shows the question whole; the ask body's own 4096 is the bound.
    maxTextLength: 4096 + 200,
    async ask(body) {
      const recipient = freshRecipient();
      const res = await w.http.post('/api/interactions', { channel: 'web', recipient, ...body });
      const id = res.json['id'] as string;
      recipients.set(id, recipient);
      await load(id);
      const view = (): Record<string, unknown> => views.get(id) as Record<string, unknown>;
      return {
        id,
        text: () => [view()['question'], view()['outcome']].filter((x) => typeof x === 'string').join('\n\n'),
        // channels/web/README.md, "What each format renders to", written out: confirm → Yes / No, select → one
        // button per choice, text → a text box, form → the form; once the question ended (its status no longer
        // pending), none. Read from the record's own fields, never from the page's outcome line.
        controls: () => {
          const v = view();
          if (v['status'] !== 'pending') return 0;
          if (v['answer_format'] === 'confirm') return 2;
          if (v['answer_format'] === 'select') return (v['choices'] as unknown[]).length;
          return 1;
        },
      } satisfies Delivered;
    },
    failingAsk: () => ({}), // no recipient: nobody could ever see it
    async reply(q, text) {
      return (await w.chatAs(recipients.get(q.id) as string).post(`/chat/api/questions/${q.id}/reply`, { text }))
        .status;
    },
    async replyUnsigned(q, text) {
      const recipient = recipients.get(q.id) as string;
      const forged = `${Buffer.from(recipient).toString('base64url')}.${'A'.repeat(43)}`;
      return (await w.chatAs(recipient, forged).post(`/chat/api/questions/${q.id}/reply`, { text })).status;
    },
    async outcomeShown(q) {
      const deadline = Date.now() + 5000;
      while ((await load(q.id))['outcome'] === null) {
        if (Date.now() > deadline) throw new Error(`question ${q.id} never showed an outcome`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async threadReplies(q) {
      const items = (await w.chatAs(recipients.get(q.id) as string).get('/chat/api/messages')).json['items'] as Array<{
        text: string;
        reply_to: string | null;
      }>;
      return items.filter((m) => m.reply_to === q.id).map((m) => m.text);
    },
    close: () => w.close(),
  };
});
