import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeActionCode } from '../../src/core/action-code.js';
import { InboundDispatcher, onSurface, pickOfCode, type SurfaceClaim } from '../../src/core/dispatcher.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * The inbound dispatcher's own rules (src/core/dispatcher.ts): which surface an event's claim matches, written out
 * on records; and, on a real gateway's store and answer path, the order of its refs, `prefer`, a channel's own
 * refusal (nothing offered) and an index that is no choice (the format's refusal).
 */

describe('the surface check', () => {
  const question = {
    channel: 'whatsapp',
    recipient: '+44 7700 900123',
    delivery: { message_id: 'wamid.A', ref: 'wamid.A' },
    extra_surfaces: [
      { channel: 'telegram', recipient: '42', delivery: { chat_id: '42', message_id: '7' } },
      { channel: 'telegram', recipient: '43', delivery: null },
    ],
  } as unknown as StoredInteraction;
  const seen = (claim: SurfaceClaim): [string | null, string | null] | null => {
    const view = onSurface(question, claim);
    return view === null ? null : [view.channel, view.recipient];
  };

  it('matches a recipient as written, or by its digits when the claim says so', () => {
    expect(seen({ channel: 'whatsapp', recipient: '447700900123' })).toBeNull();
    expect(seen({ channel: 'whatsapp', recipient: '447700900123', recipientSpelling: 'digits' })).toEqual([
      'whatsapp',
      '+44 7700 900123',
    ]);
    expect(seen({ channel: 'whatsapp', recipient: '447700900124', recipientSpelling: 'digits' })).toBeNull();
  });

  it('matches delivery entries where the surface has them, and only there', () => {
    expect(seen({ channel: 'telegram', delivery: { chat_id: '42' } })).toEqual(['telegram', '42']);
    // Chat 42's message is 7, so message 8 is not that surface; the surface with no delivery yet takes it.
    expect(seen({ channel: 'telegram', delivery: { chat_id: '42', message_id: '8' } })).toEqual(['telegram', '43']);
    expect(seen({ channel: 'telegram', recipient: '42', delivery: { chat_id: '42', message_id: '8' } })).toBeNull();
    // The second Telegram surface has no delivery yet: an entry it lacks does not refuse.
    expect(seen({ channel: 'telegram', delivery: { chat_id: '43' } })).toEqual(['telegram', '43']);
    // A null says the event names no chat: only a surface without one matches.
    expect(seen({ channel: 'telegram', delivery: { chat_id: null } })).toEqual(['telegram', '43']);
  });

  it('never matches a channel the question is not on', () => {
    expect(seen({ channel: 'slack' })).toBeNull();
    expect(seen({ channel: 'slack', delivery: {} })).toBeNull();
  });
});

describe('the dispatcher on a real store', () => {
  let gw: TestGateway;
  let dispatcher: InboundDispatcher;
  beforeAll(async () => {
    gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    const { store, service } = gw.gateway;
    dispatcher = new InboundDispatcher({
      get: (id) => store.get(id),
      findByDelivery: (channel, ref) => store.findByDelivery(channel, ref),
      pendingFor: (channel, recipients) => store.pendingFor(channel, recipients),
      offer: (offer) => service.offerAnswer(offer),
    });
  });
  afterAll(async () => gw?.close());

  const ask = async (body: Record<string, unknown>): Promise<string> => {
    const res = await api(gw.url, gw.token).post('/api/interactions', { channel: 'web', ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json['id'] as string;
  };
  const status = async (id: string): Promise<unknown> => (await gw.gateway.store.get(id))?.status;
  const base = (recipient: string) => ({
    surface: { channel: 'web', recipient },
    answeredBy: `web:${recipient}`,
    params: null,
    replyTo: null,
  });

  it('tries its refs in order: a reference that finds nothing passes to the next', async () => {
    const id = await ask({ question: 'Go?', answer_format: 'confirm', recipient: 'ada' });
    const outcome = await dispatcher.dispatch({
      ...base('ada'),
      question: [
        { by: 'delivery', ref: 'no-such-message' },
        { by: 'id', id },
      ],
      pick: { kind: 'confirm', value: true },
    });
    expect(outcome).toMatchObject({ kind: 'answered', answer: true, question: { id } });
    expect(await status(id)).toBe('answered');
  });

  it('by recipient takes the latest pending question, or the latest one `prefer` accepts', async () => {
    const older = await ask({ question: 'First?', answer_format: 'text', recipient: 'grace' });
    const newer = await ask({ question: 'Second?', answer_format: 'text', recipient: 'grace' });
    const reply = (prefer?: (q: StoredInteraction) => boolean) =>
      dispatcher.dispatch({
        ...base('grace'),
        question: { by: 'recipient', recipients: ['grace'], ...(prefer === undefined ? {} : { prefer }) },
        pick: { kind: 'answer', answer: 'ok' },
      });
    expect(await reply((q) => q.question === 'First?')).toMatchObject({ kind: 'answered', question: { id: older } });
    expect(await reply()).toMatchObject({ kind: 'answered', question: { id: newer } });
    expect(await reply()).toEqual({ kind: 'not_found' });
  });

  it("a channel's own refusal comes back as data and offers nothing", async () => {
    const id = await ask({ question: 'Name?', answer_format: 'text', recipient: 'lin' });
    const outcome = await dispatcher.dispatch({
      ...base('lin'),
      question: { by: 'id', id },
      pick: {
        kind: 'read',
        read: () => ({
          ok: false,
          refusal: { code: 'invalid_answer', field: 'name', reason: 'is required' },
          message: 'Name: is required.',
          fields: { name: 'is required' },
        }),
      },
    });
    expect(outcome).toMatchObject({
      kind: 'refused',
      refusal: { code: 'invalid_answer', field: 'name', reason: 'is required' },
      message: 'Name: is required.',
      fields: { name: 'is required' },
    });
    expect(await status(id)).toBe('pending');
  });

  it('an index that is no choice is refused by the format, and the question stays pending', async () => {
    const id = await ask({ question: 'Which?', answer_format: 'select', choices: ['a', 'b'], recipient: 'kim' });
    const outcome = await dispatcher.dispatch({
      ...base('kim'),
      question: { by: 'id', id },
      pick: { kind: 'choice', index: 2 },
    });
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { code: 'invalid_answer' } });
    expect(await status(id)).toBe('pending');
    expect(
      await dispatcher.dispatch({ ...base('kim'), question: { by: 'id', id: 'nope' }, pick: { kind: 'look' } }),
    ).toEqual({
      kind: 'not_found',
    });
  });

  it('answers a review from a tapped approve or reject code, and edit and respond from the pick that carries them', async () => {
    gw.gateway.channels.register({
      name: 'reviewing',
      capabilities: { supportsFormDelivery: true, supportsReview: true },
      deliver: async () => ({ message_id: '1' }),
    });
    const schema = {
      type: 'object',
      required: ['env'],
      properties: { env: { type: 'string', enum: ['prod', 'staging'] } },
    };
    const reviewAsk = (recipient: string) =>
      ask({
        question: 'Deploy?',
        answer_format: 'review',
        action: { name: 'deploy', args: { env: 'prod' } },
        schema,
        decisions: ['approve', 'edit', 'reject', 'respond'],
        channel: 'reviewing',
        recipient,
      });
    const onReviewing = (recipient: string) => ({
      surface: { channel: 'reviewing', recipient },
      answeredBy: `reviewing:${recipient}`,
      params: null,
      replyTo: null,
    });
    const tap = async (recipient: string, code: string) => {
      const decoded = decodeActionCode(code);
      if (decoded === null) throw new Error(`${code} is no action code`);
      return dispatcher.dispatch({
        ...onReviewing(recipient),
        question: { by: 'id', id: decoded.interactionId },
        pick: pickOfCode(decoded.pick),
      });
    };

    const approved = await reviewAsk('r1');
    expect(await tap('r1', `${approved}:a`)).toMatchObject({ kind: 'answered', answer: { decision: 'approve' } });
    const rejected = await reviewAsk('r2');
    expect(await tap('r2', `${rejected}:r`)).toMatchObject({ kind: 'answered', answer: { decision: 'reject' } });
    // Edit and respond taps only look: the channel opens its form or asks for the words; nothing is answered.
    const edited = await reviewAsk('r3');
    expect(await tap('r3', `${edited}:e`)).toMatchObject({ kind: 'ready', question: { id: edited } });
    expect(await tap('r3', `${edited}:m`)).toMatchObject({ kind: 'ready', question: { id: edited } });
    expect(await status(edited)).toBe('pending');
    const refused = await dispatcher.dispatch({
      ...onReviewing('r3'),
      question: { by: 'id', id: edited },
      pick: { kind: 'review', decision: 'edit', args: { env: 'qa' } },
    });
    expect(refused).toMatchObject({
      kind: 'refused',
      refusal: { code: 'invalid_answer', field: 'args.env' },
      violations: [{ field: 'args.env', reason: 'must be one of "prod", "staging"' }],
    });
    expect(
      await dispatcher.dispatch({
        ...onReviewing('r3'),
        question: { by: 'id', id: edited },
        pick: { kind: 'review', decision: 'edit', args: { env: 'staging' } },
      }),
    ).toMatchObject({ kind: 'answered', answer: { decision: 'edit', args: { env: 'staging' } } });
    const responded = await reviewAsk('r4');
    expect(
      await dispatcher.dispatch({
        ...onReviewing('r4'),
        question: { by: 'id', id: responded },
        pick: { kind: 'review', decision: 'respond', message: 'Wait for the freeze to end.' },
      }),
    ).toMatchObject({ kind: 'answered', answer: { decision: 'respond', message: 'Wait for the freeze to end.' } });
    expect((await gw.gateway.store.get(responded))?.result).toMatchObject({
      answer: { decision: 'respond', message: 'Wait for the freeze to end.' },
      answered_by: 'reviewing:r4',
      surface: 'reviewing',
    });
  });
});
