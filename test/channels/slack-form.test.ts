import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, type SlackWorld } from './slack-harness.js';
import { PERSON, blockActions, state, viewBlockAction, viewSubmission } from '../fakes/slack-payloads.js';
import type { FakeView } from '../fakes/slack-server.js';
import { FORM_DID_NOT_OPEN } from '../../channels/slack/plugin.js';
import type { webApi } from '@slack/bolt';

/** A form question answered through a Slack modal, end to end over the fake Web API. */
const SCHEMA = {
  type: 'object',
  title: 'Shipping details for the replacement part',
  required: ['email', 'quantity', 'delivery'],
  properties: {
    email: { type: 'string', format: 'email', title: 'Email', errorMessages: { invalid: 'Enter your full address' } },
    quantity: { type: 'integer', minimum: 1, maximum: 5, title: 'How many?' },
    date: { type: 'string', format: 'date', formatMinimum: '2025-01-01', title: 'Ship on' },
    delivery: { type: 'string', enum: ['courier', 'pickup'], title: 'Delivery' },
    address: { type: 'string', title: 'Address', visibleWhen: { field: 'delivery', equals: 'courier' } },
    extras: { type: 'array', items: { type: 'string', enum: ['gift wrap', 'insurance'] }, title: 'Extras' },
    urgent: { type: 'boolean', title: 'Urgent' },
  },
};

describe('slack form modal', () => {
  let w: SlackWorld;
  beforeAll(async () => {
    w = await startSlackWorld();
  });
  afterAll(async () => w.close());

  const openForm = async (): Promise<{ id: string; view: FakeView }> => {
    const { id, message } = await w.ask({
      question: 'Where should we ship it?',
      answer_format: 'form',
      schema: SCHEMA,
    });
    expect(JSON.stringify(message.blocks)).toContain('Open form');
    const trigger = w.fake.mintTrigger();
    expect((await w.interact(blockActions(message, 'askgate_open_form', { triggerId: trigger }))).status).toBe(200);
    return { id, view: await w.eventually(() => w.fake.viewOpenedBy(trigger)) };
  };

  const inputs = (view: Record<string, unknown>): Array<Record<string, unknown>> =>
    (view['blocks'] as Array<Record<string, unknown>>).filter((b) => b['type'] === 'input');

  it("opens a modal built from the schema, with each field's Slack control and limits", async () => {
    const { view } = await openForm();
    expect(view.view['title']).toMatchObject({ text: 'Shipping details for th…' });
    const byBlock = Object.fromEntries(inputs(view.view).map((b) => [b['block_id'], b]));
    expect(Object.keys(byBlock)).toEqual(['f:email', 'f:quantity', 'f:date', 'f:delivery', 'f:extras', 'f:urgent']);
    expect(byBlock['f:email']?.['element']).toMatchObject({ type: 'email_text_input' });
    expect(byBlock['f:quantity']?.['element']).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '5',
    });
    expect(byBlock['f:date']?.['element']).toMatchObject({ type: 'datepicker' });
    expect(byBlock['f:date']?.['hint']).toMatchObject({ text: 'On or after 2025-01-01.' });
    expect(byBlock['f:delivery']).toMatchObject({ dispatch_action: true, element: { type: 'radio_buttons' } });
    expect(byBlock['f:extras']?.['element']).toMatchObject({ type: 'checkboxes' });
    expect(byBlock['f:urgent']).toMatchObject({
      optional: true,
      element: { type: 'checkboxes', options: [{ value: 'true' }] },
    });
    expect(JSON.parse(view.view['private_metadata'] as string)).toMatchObject({ i: expect.any(String) });
  });

  it('visibleWhen: choosing "courier" updates the view to show the address field', async () => {
    const { view } = await openForm();
    const courier = {
      type: 'radio_buttons',
      selected_option: { value: 'o0', text: { type: 'plain_text', text: 'courier' } },
    };
    const res = await w.interact(viewBlockAction(view, 'delivery', courier, state({ delivery: courier })));
    expect(res.status).toBe(200);
    await w.eventually(() => view.history.length >= 2);
    expect(inputs(view.view).map((b) => b['block_id'])).toContain('f:address');
    expect(w.fake.callsTo('views.update').at(-1)?.args['view_id']).toBe(view.id);
  });

  it("a broken email answers errors for that block in the sender's words, and the question stays pending; a valid one answers and closes", async () => {
    const { id, view } = await openForm();
    const filled = {
      quantity: { type: 'number_input', value: '2' },
      date: { type: 'datepicker', selected_date: '2025-06-30' },
      delivery: { type: 'radio_buttons', selected_option: { value: 'o1' } },
      extras: { type: 'checkboxes', selected_options: [{ value: 'o1' }] },
      urgent: { type: 'checkboxes', selected_options: [{ value: 'true' }] },
    };
    const broken = await w.interact(
      viewSubmission(view, state({ ...filled, email: { type: 'email_text_input', value: 'ada@' } })),
    );
    expect(broken.status).toBe(200);
    expect(broken.json).toEqual({ response_action: 'errors', errors: { 'f:email': 'Enter your full address' } });
    expect((await w.record(id))['status']).toBe('pending');

    const early = await w.interact(
      viewSubmission(
        view,
        state({
          ...filled,
          email: { type: 'email_text_input', value: 'ada@example.com' },
          date: { type: 'datepicker', selected_date: '2024-12-31' },
        }),
      ),
    );
    expect(early.json).toEqual({
      response_action: 'errors',
      errors: { 'f:date': 'Enter a date on or after 2025-01-01.' },
    });

    const valid = await w.interact(
      viewSubmission(view, state({ ...filled, email: { type: 'email_text_input', value: 'ada@example.com' } })),
    );
    expect(valid.status).toBe(200);
    expect(valid.text).toBe('');
    const r = (await w.record(id))['result'] as Record<string, unknown>;
    expect(r).toMatchObject({
      answer: {
        email: 'ada@example.com',
        quantity: 2,
        date: '2025-06-30',
        delivery: 'pickup',
        extras: ['insurance'],
        urgent: true,
      },
      surface: 'slack',
      answered_by: `slack:${PERSON.id}`,
    });
  });

  it('a second submission after the answer is told the question is closed', async () => {
    const { id, view } = await openForm();
    await w.http.post(`/api/interactions/${id}/answer`, {
      answer: { email: 'x@example.com', quantity: 1, delivery: 'pickup' },
    });
    const late = await w.interact(
      viewSubmission(view, state({ email: { type: 'email_text_input', value: 'ada@example.com' } })),
    );
    expect(late.json).toMatchObject({
      response_action: 'update',
      view: { blocks: [{ text: { text: 'This question is already answered.' } }] },
    });
  });

  it('views.open refuses a trigger_id after 3 s (expired_trigger_id) and a used one (exchanged_trigger_id)', async () => {
    const { message } = await w.ask({ question: 'Form?', answer_format: 'form', schema: SCHEMA });
    const stale = w.fake.mintTrigger(3500);
    await w.interact(blockActions(message, 'askgate_open_form', { triggerId: stale }));
    const used = w.fake.mintTrigger();
    await w.interact(blockActions(message, 'askgate_open_form', { triggerId: used }));
    await w.eventually(() => w.fake.callsTo('views.open').filter((c) => c.args['trigger_id'] === used).length === 1);
    const client = w.gw.gateway.channels.get('slack') as unknown as { client: webApi.WebClient };
    await expect(
      client.client.views.open({
        trigger_id: stale,
        view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] },
      }),
    ).rejects.toMatchObject({ data: { error: 'expired_trigger_id' } });
    await expect(
      client.client.views.open({
        trigger_id: used,
        view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] },
      }),
    ).rejects.toMatchObject({ data: { error: 'exchanged_trigger_id' } });
  });
  it('a form that cannot open (expired or used trigger) tells the tapper to tap again and leaves the question open', async () => {
    const { id, message } = await w.ask({ question: 'Form again?', answer_format: 'form', schema: SCHEMA });
    const toldTapAgain = () =>
      w.fake
        .callsTo('chat.postEphemeral')
        .filter((c) => c.args['channel'] === message.channel && c.args['user'] === PERSON.id)
        .filter((c) => c.args['text'] === FORM_DID_NOT_OPEN);
    await w.interact(blockActions(message, 'askgate_open_form', { triggerId: w.fake.mintTrigger(3500) }));
    await w.eventually(() => toldTapAgain().length === 1);
    // A trigger is minted anew for every interaction (a second delivery of one is dropped as a duplicate), so a used
    // one is used here first, as another open would have.
    const used = w.fake.mintTrigger();
    const client = w.gw.gateway.channels.get('slack') as unknown as { client: webApi.WebClient };
    await client.client.views.open({
      trigger_id: used,
      view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] },
    });
    await w.interact(blockActions(message, 'askgate_open_form', { triggerId: used }));
    await w.eventually(() => toldTapAgain().length === 2);
    expect(w.fake.callsTo('views.open').filter((c) => c.args['trigger_id'] === used)).toHaveLength(2);
    expect((await w.record(id))['status']).toBe('pending');
    expect(message.history).toHaveLength(1);
  });
});
