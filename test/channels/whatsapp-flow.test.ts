import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';
import { nfmReply } from '../fakes/whatsapp-webhooks.js';
import { fieldOfRefusal } from '../../channels/whatsapp/flow.js';

type Rec = Record<string, unknown>;

const schema = {
  type: 'object',
  title: 'Leave request',
  required: ['email', 'start', 'days', 'kind'],
  properties: {
    email: {
      type: 'string',
      format: 'email',
      errorMessages: { invalid: 'Use your work email, e.g. ada@example.com.' },
    },
    start: { type: 'string', format: 'date', formatMinimum: '2025-01-01', formatMaximum: '2030-12-31' },
    days: { type: 'integer', minimum: 1, maximum: 30, errorMessages: { invalid: 'Between 1 and 30 days, please.' } },
    kind: { type: 'string', enum: ['holiday', 'sick', 'parental', 'unpaid', 'other'] },
    reason: { type: 'string', maxLength: 200, visibleWhen: { field: 'kind', equals: 'other' } },
    tags: { type: 'array', items: { type: 'string', enum: ['urgent', 'remote'] } },
    agree: { type: 'boolean', title: 'I have told my team' },
  },
};

const flowParams = (m: { payload: Rec }): Rec =>
  ((m.payload['interactive'] as Rec)['action'] as Rec)['parameters'] as Rec;

describe('whatsapp form as a Flow', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld();
  });
  afterAll(async () => w.close());

  it('compiles the schema to Flow JSON, publishes it once, and an nfm_reply answers the form end to end', async () => {
    const q = await w.ask({ question: 'Request leave', answer_format: 'form', schema });
    const params = flowParams(q.message);
    expect(params['flow_token']).toBe(`askgate:${q.id}`);
    const flow = w.fake.flows.get(params['flow_id'] as string);
    expect(flow?.status).toBe('PUBLISHED');
    const children = ((flow?.json?.['screens'] as Rec[])[0]!['layout'] as Rec)['children'] as Rec[];
    expect(children.map((c) => c['type'])).toEqual([
      'TextInput',
      'DatePicker',
      'TextInput',
      'Dropdown',
      'TextInput',
      'CheckboxGroup',
      'OptIn',
      'Footer',
    ]);
    expect(children[0]).toMatchObject({ 'input-type': 'email', required: true, 'error-message': '${data.e0}' });
    expect(children[1]).toMatchObject({ 'min-date': '2025-01-01', 'max-date': '2030-12-31' });
    expect(children[2]).toMatchObject({ 'input-type': 'number' });
    expect(children[4]!['visible']).toBe("`${form.f3} == 'o4'`");
    expect((children[7]!['on-click-action'] as Rec)['name']).toBe('complete');

    // A second form with the same schema reuses the published flow.
    const again = await w.ask({ question: 'Another leave', answer_format: 'form', schema });
    expect(flowParams(again.message)['flow_id']).toBe(params['flow_id']);
    expect(w.fake.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/publish'))).toHaveLength(1);

    expect(
      await w.send(
        nfmReply(q.to, q.message.id, {
          flow_token: `askgate:${q.id}`,
          f0: 'ada@example.com',
          f1: '2026-03-02',
          f2: '5',
          f3: 'o0',
          f4: '',
          f5: ['o1'],
          f6: true,
        }),
      ),
    ).toBe(200);
    const r = (await w.record(q.id))['result'] as Rec;
    expect(r['answer']).toEqual({
      email: 'ada@example.com',
      start: '2026-03-02',
      days: 5,
      kind: 'holiday',
      tags: ['remote'],
      agree: true,
    });
    expect(r['reply_to']).toMatchObject({ message_id: q.message.id, text: 'Request leave' });
    expect(r['params']).toMatchObject({ flow_token: `askgate:${q.id}`, from: q.to });
  });

  it("a refused submission is answered in the chat with the field's words and a fresh form; the next one answers", async () => {
    const q = await w.ask({ question: 'Request leave, again', answer_format: 'form', schema });
    await w.send(
      nfmReply(q.to, q.message.id, {
        flow_token: `askgate:${q.id}`,
        f0: 'not-an-email',
        f1: '2026-03-02',
        f2: '45',
        f3: 'o1',
        f6: false,
      }),
    );
    expect((await w.record(q.id))['status']).toBe('pending');
    const fresh = w.fake.sentTo(q.to).at(-1)!;
    expect((fresh.payload['interactive'] as Rec)['type']).toBe('flow');
    expect(bodyOf(fresh)).toContain('Use your work email, e.g. ada@example.com.');
    expect(bodyOf(fresh)).toContain('Between 1 and 30 days, please.');
    const data = flowParams(fresh)['flow_action_payload'] as Rec;
    expect(data['data']).toMatchObject({
      e0: 'Use your work email, e.g. ada@example.com.',
      e2: 'Between 1 and 30 days, please.',
      e1: '',
    });

    await w.send(
      nfmReply(q.to, fresh.id, {
        flow_token: `askgate:${q.id}`,
        f0: 'ada@example.com',
        f1: '2026-03-02',
        f2: '3',
        f3: 'o4',
        f4: 'moving house',
        f6: false,
      }),
    );
    const r = (await w.record(q.id))['result'] as Rec;
    expect(r['answer']).toEqual({
      email: 'ada@example.com',
      start: '2026-03-02',
      days: 3,
      kind: 'other',
      reason: 'moving house',
      agree: false,
    });
  });

  it("a refusal only the core makes is mapped to its field, with the sender's invalid words", () => {
    const words = fieldOfRefusal(schema, { field: 'days', reason: 'must be <= 30' });
    expect(words).toEqual({ field: 'days', words: 'Between 1 and 30 days, please.' });
    expect(fieldOfRefusal(schema, { field: 'start', reason: 'must match format "date"' })).toEqual({
      field: 'start',
      words: 'must match format "date"',
    });
    expect(fieldOfRefusal(schema, { reason: 'something else' }).field).toBeNull();
  });

  it("shows each input's own words (errorMessages) as helper text from the first open, within WhatsApp's 80", async () => {
    const worded = {
      type: 'object',
      required: ['email', 'start', 'note', 'kind'],
      properties: {
        email: {
          type: 'string',
          format: 'email',
          title: 'Email',
          errorMessages: { invalid: 'Use your work email, e.g. ada@example.com.', required: 'We need your email' },
        },
        start: {
          type: 'string',
          format: 'date',
          title: 'First day',
          description: 'A working day',
          errorMessages: { invalid: 'Pick a date in 2026' },
        },
        note: {
          type: 'string',
          maxLength: 1000,
          title: 'Note',
          errorMessages: {
            required:
              'Tell us in a sentence or two what the leave is for, so your manager can plan the weeks around it.',
          },
        },
        kind: {
          type: 'string',
          enum: ['holiday', 'sick'],
          title: 'Kind',
          errorMessages: { required: 'Pick one' },
        },
        plain: { type: 'string', title: 'Plain' },
      },
    };
    const q = await w.ask({ question: 'Worded leave', answer_format: 'form', schema: worded });
    const flow = w.fake.flows.get(flowParams(q.message)['flow_id'] as string);
    // The fake refuses an upload whose helper-text is too long or sits on a component without one.
    expect(flow?.status).toBe('PUBLISHED');
    const children = ((flow?.json?.['screens'] as Rec[])[0]!['layout'] as Rec)['children'] as Rec[];
    expect(children.map((c) => [c['type'], c['helper-text']])).toEqual([
      ['TextInput', 'Use your work email, e.g. ada@example.com. We need your email'],
      ['DatePicker', 'Pick a date in 2026. A working day'],
      [
        'TextArea',
        // 79 characters of the sender's words and an ellipsis: WhatsApp's 80.
        'Tell us in a sentence or two what the leave is for, so your manager can plan th…',
      ],
      ['RadioButtonsGroup', undefined],
      ['TextInput', undefined],
      ['Footer', undefined],
    ]);
    // The error lines stay empty until a submit is refused: the words are there before it, as helper text.
    expect((flowParams(q.message)['flow_action_payload'] as Rec)['data']).toEqual({
      e0: '',
      e1: '',
      e2: '',
      e3: '',
      e4: '',
    });
  });
});
