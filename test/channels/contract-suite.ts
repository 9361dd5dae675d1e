import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelPlugin } from '../../channels/contract.js';
import { reminderText } from '../../channels/reminder.js';
import type { Gateway } from '../../src/gateway.js';
import type { Api } from '../helpers/http.js';

/**
 * The one suite every channel passes (Telegram, web, and the ones to come): render limits, the round trip of
 * delivery references, reply mapping, signature refusal, the outcome edit and delivery failure. A channel supplies a
 * harness that speaks its platform (a fake server, a signed request); the suite only speaks the contract.
 */

/** A delivered question as the harness sees it on the platform. */
export interface Delivered {
  id: string;
  /** What the person sees now (the text of the message). */
  text(): string;
  /** How many answer controls (buttons, widgets) the message still carries. */
  controls(): number;
}

export interface ChannelHarness {
  readonly channel: string;
  readonly gateway: Gateway;
  readonly http: Api;
  /** The platform's text limit for one message. */
  readonly maxTextLength: number;
  /** Asks on the channel (fresh recipient each time) and returns the delivered question. */
  ask(body: Record<string, unknown>): Promise<Delivered>;
  /** Ask-body fields under which delivery fails on the platform (an unknown chat, no recipient...). */
  failingAsk(): Record<string, unknown>;
  /** The person replies `text` to the question, properly signed; resolves when the platform got its answer. */
  reply(question: Delivered, text: string): Promise<number>;
  /** The same reply with a missing or wrong signature; resolves with the HTTP status. */
  replyUnsigned(question: Delivered, text: string): Promise<number>;
  /** Waits until the question shows an outcome (after an answer, expiry or cancel). */
  outcomeShown(question: Delivered): Promise<void>;
  /**
   * The texts the platform holds as replies in the question's thread (a reply to the message, a thread message, or
   * on SMS a later message to the same number carrying the question's tag), oldest first; never the question itself.
   */
  threadReplies(question: Delivered): Promise<string[]>;
  close(): Promise<void>;
}

export function runChannelContract(name: string, start: () => Promise<ChannelHarness>): void {
  describe(`${name}: channel contract`, () => {
    let h: ChannelHarness;
    beforeAll(async () => {
      h = await start();
    });
    afterAll(async () => h.close());

    const record = async (id: string): Promise<Record<string, unknown>> =>
      (await h.http.get(`/api/interactions/${id}`)).json;

    it("render limits: a question of the contract's longest text and a select of 100 long choices are delivered within the platform's limits", async () => {
      const long = await h.ask({ question: 'Q'.repeat(4096), answer_format: 'confirm' });
      expect([...long.text()].length).toBeLessThanOrEqual(h.maxTextLength);
      expect(long.text()).toContain('QQQQ');
      const choices = Array.from({ length: 100 }, (_, i) => `${i}-${'c'.repeat(190)}`);
      const select = await h.ask({ question: 'Which?', answer_format: 'select', choices });
      expect(select.controls()).toBeGreaterThan(0);
    });

    it('remind: a reminder replies in the question thread, not as a new question, and answers nothing', async () => {
      const q = await h.ask({ question: 'Nudged?', answer_format: 'confirm' });
      const stored = await h.gateway.store.get(q.id);
      if (stored?.delivery == null) throw new Error('the question was not delivered');
      // The registry holds the plugins themselves; the core's face of them does not show remind.
      const plugin = h.gateway.channels.get(h.channel) as unknown as ChannelPlugin;
      await plugin.remind(stored, stored.delivery, reminderText(stored, 1, 2));
      expect(await h.threadReplies(q)).toEqual([expect.stringContaining('Reminder 1 of 2')]);
      expect((await h.threadReplies(q))[0]).toContain('Nudged?');
      expect((await record(q.id))['status']).toBe('pending');
    });

    it('reference round trip: the delivery references are stored and lead back to the question', async () => {
      const q = await h.ask({ question: 'Round trip?', answer_format: 'confirm' });
      const stored = await h.gateway.store.get(q.id);
      const ref = stored?.delivery?.['ref'];
      expect(typeof ref).toBe('string');
      expect((await h.gateway.store.findByDelivery(h.channel, ref as string))?.id).toBe(q.id);
    });

    it('reply mapping: "yes" in reply to a confirm answers true, with reply_to the quoted question', async () => {
      const q = await h.ask({ question: 'Mapped?', answer_format: 'confirm' });
      expect(await h.reply(q, 'yes')).toBe(200);
      const r = await record(q.id);
      expect(r['status']).toBe('answered');
      const result = r['result'] as Record<string, unknown>;
      expect(result['answer']).toBe(true);
      expect(result['surface']).toBe(h.channel);
      expect(result['reply_to']).toMatchObject({ status: 'pending' });
      expect((result['reply_to'] as Record<string, unknown>)['text']).toContain('Mapped?');
    });

    it('signature refusal: an unsigned or wrongly signed inbound is 401 and changes nothing', async () => {
      const q = await h.ask({ question: 'Signed?', answer_format: 'confirm' });
      expect(await h.replyUnsigned(q, 'yes')).toBe(401);
      expect((await record(q.id))['status']).toBe('pending');
    });

    it('outcome edit: an answer from another surface shows on the question, which loses its controls', async () => {
      const q = await h.ask({ question: 'Outcome?', answer_format: 'confirm' });
      expect(q.controls()).toBeGreaterThan(0);
      expect((await h.http.post(`/api/interactions/${q.id}/answer`, { answer: true })).json).toEqual({
        status: 'answered',
      });
      await h.outcomeShown(q);
      expect(q.text()).toMatch(/✅ Approved by \S+ through the API/);
      expect(q.controls()).toBe(0);
      // What the harness counts as gone is gone in fact: a late "no" on the question changes nothing.
      await h.reply(q, 'no');
      expect((await record(q.id))['result']).toMatchObject({ answer: true, surface: 'api' });
    });

    it('delivery failure: the asker gets a 502 naming the channel before anything waits', async () => {
      const res = await h.http.post('/api/interactions', {
        question: 'Fail?',
        answer_format: 'confirm',
        channel: h.channel,
        ...h.failingAsk(),
      });
      expect(res.status).toBe(502);
      expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: h.channel });
      expect(res.json['message']).toContain(`"${h.channel}"`);
    });
  });
}

/** A question sent on a channel that cannot edit it: the message as sent, and to whom. */
export interface SentQuestion<M> {
  message: M;
  to: string;
}

/**
 * The `ask` of a harness for a channel that cannot edit a sent message (SMS, WhatsApp), where the outcome arrives as
 * a follow-up message. What the person sees of a question is then its thread — the question, then the follow-ups
 * `followUps` finds for it in the fake (by quote or tag, never by their wording) — and the controls the person is
 * offered are those of the newest message in that thread, as the fake holds it: an outcome note that came with no
 * controls leaves none, a missing note leaves the question's. `sent(id)` hands back where a question went, for the
 * harness's replies.
 */
export function threadedAsks<M>(
  send: (body: Record<string, unknown>) => Promise<{ id: string } & SentQuestion<M>>,
  followUps: (q: SentQuestion<M>) => M[],
  bodyOf: (message: M) => string,
  controlsOf: (message: M) => number,
): { ask(body: Record<string, unknown>): Promise<Delivered>; sent(id: string): SentQuestion<M> } {
  const asked = new Map<string, SentQuestion<M>>();
  return {
    async ask(body) {
      const { id, message, to } = await send(body);
      const q = { message, to };
      asked.set(id, q);
      const thread = (): M[] => [message, ...followUps(q)];
      return {
        id,
        text: () => thread().map(bodyOf).join('\n'),
        controls: () => controlsOf(thread().at(-1) as M),
      };
    },
    sent(id) {
      const q = asked.get(id);
      if (q === undefined) throw new Error(`no question ${id} was asked through this harness`);
      return q;
    },
  };
}
