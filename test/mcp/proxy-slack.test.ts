import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshChannel, startSlackWorld, type SlackWorld } from '../channels/slack-harness.js';
import { blockActions, state, viewSubmission } from '../fakes/slack-payloads.js';
import type { FakeSlackMessage } from '../fakes/slack-server.js';
import { eventually } from './harness.js';
import { startProxySession } from './proxy-harness.js';

/**
 * `askgate mcp-proxy` with the person on Slack: the elicitation's form opens as a modal, and its submission is the
 * server's `accept` with the typed content (a titled enum answered by its `const`); Decline is `decline`.
 */

let w: SlackWorld;
beforeAll(async () => {
  w = await startSlackWorld();
});
afterAll(async () => w?.close());

const FORM = {
  message: 'Ship the replacement?',
  requestedSchema: {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', title: 'Email' },
      quantity: { type: 'integer', minimum: 1, maximum: 5, title: 'How many?' },
      speed: {
        type: 'string',
        title: 'Speed',
        oneOf: [
          { const: 'std', title: 'Standard' },
          { const: 'exp', title: 'Express' },
        ],
      },
      urgent: { type: 'boolean', title: 'Urgent' },
    },
    required: ['email', 'quantity', 'speed'],
  },
};

async function questionsIn(channel: string): Promise<{ form: FakeSlackMessage; decline: FakeSlackMessage }> {
  await eventually(() => w.fake.messagesIn(channel).length >= 2, 'the form and the Decline question');
  const [form, decline] = w.fake.messagesIn(channel) as [FakeSlackMessage, FakeSlackMessage];
  return { form, decline };
}

it('accepts with the typed content after the form is answered in the Slack modal', async () => {
  const channel = freshChannel();
  const session = await startProxySession(w.gw, ['--channel', 'slack', '--recipient', channel]);
  try {
    const result = session.elicit(FORM);
    const { form } = await questionsIn(channel);
    const trigger = w.fake.mintTrigger();
    expect((await w.interact(blockActions(form, 'askgate_open_form', { triggerId: trigger }))).status).toBe(200);
    const view = await w.eventually(() => w.fake.viewOpenedBy(trigger));
    const submitted = await w.interact(
      viewSubmission(
        view,
        state({
          email: { type: 'email_text_input', value: 'ada@example.com' },
          quantity: { type: 'number_input', value: '2' },
          speed: { type: 'radio_buttons', selected_option: { value: 'o1' } },
          urgent: { type: 'checkboxes', selected_options: [{ value: 'true' }] },
        }),
      ),
    );
    expect(submitted.status).toBe(200);
    expect((await result).value).toEqual({
      action: 'accept',
      content: { email: 'ada@example.com', quantity: 2, speed: 'exp', urgent: true },
      _meta: { 'askgate/reply_to': null },
    });
  } finally {
    await session.close();
  }
});

it('declines after the person presses Decline', async () => {
  const channel = freshChannel();
  const session = await startProxySession(w.gw, ['--channel', 'slack', '--recipient', channel]);
  try {
    const result = session.elicit(FORM);
    const { decline } = await questionsIn(channel);
    const elements = decline.blocks
      .filter((b) => b['type'] === 'actions')
      .flatMap((b) => b['elements'] as Array<Record<string, unknown>>);
    const button = elements.find((e) => JSON.stringify(e['text']).includes('Decline'));
    expect(button).toBeDefined();
    expect((await w.interact(blockActions(decline, button?.['action_id'] as string))).status).toBe(200);
    expect((await result).value).toEqual({ action: 'decline' });
  } finally {
    await session.close();
  }
});
