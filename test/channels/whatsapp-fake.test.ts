import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph } from '../fakes/whatsapp-graph.js';
import { PHONE_NUMBER_ID } from '../fakes/whatsapp-webhooks.js';

/**
 * The fake Graph API refuses what the WhatsApp Cloud API refuses (developers.facebook.com: messages, interactive
 * and template objects, Flows), so askgate's real code meets those refusals in the channel tests.
 */

let fake: FakeGraph;
beforeAll(async () => {
  fake = await startFakeGraph();
});
afterAll(async () => fake?.close());

async function send(message: Record<string, unknown>, phoneNumberId = PHONE_NUMBER_ID): Promise<number> {
  const res = await fetch(`${fake.apiUrl}/${phoneNumberId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GRAPH_TOKEN}` },
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '15550001111',
      ...message,
    }),
  });
  await res.text();
  return res.status;
}

const buttons = (list: Array<{ id: string; title: string }>) => ({
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'Q?' },
    action: { buttons: list.map((reply) => ({ type: 'reply', reply })) },
  },
});
const listOf = (sections: Array<{ title?: string; rows: Array<{ id: string; title: string }> }>) => ({
  type: 'interactive',
  interactive: { type: 'list', body: { text: 'Q?' }, action: { button: 'Choose', sections } },
});

describe('the fake WhatsApp Cloud API refuses what it refuses', () => {
  it('sends from its own phone number id only', async () => {
    expect(await send({ type: 'text', text: { body: 'hi' } }, '999999999999999')).toBe(400);
    expect(await send({ type: 'text', text: { body: 'hi' } })).toBe(200);
  });

  it('refuses duplicate button ids and empty titles', async () => {
    expect(
      await send(
        buttons([
          { id: 'a', title: 'Yes' },
          { id: 'a', title: 'No' },
        ]),
      ),
    ).toBe(400);
    expect(await send(buttons([{ id: 'a', title: '' }]))).toBe(400);
    expect(
      await send(
        buttons([
          { id: 'a', title: 'Yes' },
          { id: 'b', title: 'No' },
        ]),
      ),
    ).toBe(200);
  });

  it('refuses more than 10 sections, untitled sections of a multi-section list, and duplicate row ids', async () => {
    const row = (i: number) => ({ id: `r${i}`, title: `Row ${i}` });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: [row(i)] }));
    expect(await send(listOf(eleven))).toBe(400);
    expect(await send(listOf([{ rows: [row(1)] }, { rows: [row(2)] }]))).toBe(400);
    expect(await send(listOf([{ title: 'S', rows: [row(1), row(1)] }]))).toBe(400);
    expect(await send(listOf([{ title: 'S', rows: [row(1), row(2)] }]))).toBe(200);
  });

  it('validates templates: an approved name and language, its parameter count, and parameters without new lines', async () => {
    const template = (name: string, text: string, code = 'en_US') => ({
      type: 'template',
      template: { name, language: { code }, components: [{ type: 'body', parameters: [{ type: 'text', text }] }] },
    });
    expect(await send(template('never_approved', 'Q?'))).toBe(404);
    expect(await send(template('askgate_question', 'Q?', 'de_DE'))).toBe(404);
    expect(await send(template('askgate_question', 'Q?\n1. a'))).toBe(400);
    expect(await send(template('askgate_question', 'Q? 1. a; 2. b'))).toBe(200);
  });

  it('refuses a flow message whose flow was never published', async () => {
    const flow = (flowId: string) => ({
      type: 'interactive',
      interactive: {
        type: 'flow',
        body: { text: 'Q?' },
        action: {
          name: 'flow',
          parameters: { flow_message_version: '3', flow_token: 't', flow_id: flowId, flow_cta: 'Open' },
        },
      },
    });
    expect(await send(flow('123456789'))).toBe(400);
  });
});
