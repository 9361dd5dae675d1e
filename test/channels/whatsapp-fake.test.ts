import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph } from '../fakes/whatsapp-graph.js';
import { PHONE_NUMBER_ID, WABA_ID as WABA } from '../fakes/whatsapp-webhooks.js';

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

/**
 * Flow JSON as WhatsApp validates it on upload (developers.facebook.com/docs/whatsapp/flows/reference/flowjson and
 * .../components), through plain fetch as askgate's Graph client calls the Flows API: create, upload the asset,
 * read validation_errors, publish, send.
 */
describe('the fake WhatsApp Cloud API validates Flow JSON', () => {
  const graph = async (path: string, init: RequestInit): Promise<Record<string, unknown>> => {
    const res = await fetch(`${fake.apiUrl}/${path}`, {
      ...init,
      headers: { authorization: `Bearer ${GRAPH_TOKEN}`, ...(init.headers ?? {}) },
    });
    return (await res.json()) as Record<string, unknown>;
  };
  /** Creates a Flow, uploads `json`, and answers the validation errors' codes and whether it could be published. */
  const upload = async (json: unknown): Promise<{ id: string; errors: string[]; published: boolean }> => {
    const created = await graph(`${WABA}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `f${Math.random()}`, categories: ['OTHER'] }),
    });
    const id = created['id'] as string;
    const form = new FormData();
    form.set('name', 'flow.json');
    form.set('asset_type', 'FLOW_JSON');
    form.set('file', new Blob([JSON.stringify(json)], { type: 'application/json' }), 'flow.json');
    const uploaded = await graph(`${id}/assets`, { method: 'POST', body: form });
    const errors = (uploaded['validation_errors'] as Array<{ error: string }>).map((e) => e.error);
    const published = (await graph(`${id}/publish`, { method: 'POST' }))['success'] === true;
    return { id, errors, published };
  };

  /** A valid one-screen Flow, written out: a TextInput, a Dropdown, and the Footer that completes it. */
  const valid = () => ({
    version: '6.3',
    screens: [
      {
        id: 'FORM',
        title: 'Your answer',
        terminal: true,
        data: { e0: { type: 'string', __example__: '' } },
        layout: {
          type: 'SingleColumnLayout',
          children: [
            { type: 'TextInput', name: 'f0', label: 'Name', required: true, 'error-message': '${data.e0}' },
            { type: 'Dropdown', name: 'f1', label: 'Region', 'data-source': [{ id: 'o0', title: 'eu-west-1' }] },
            { type: 'Footer', label: 'Send', 'on-click-action': { name: 'complete', payload: { f0: '${form.f0}' } } },
          ],
        },
      },
    ],
  });
  type Flow = ReturnType<typeof valid>;
  const edit = (change: (flow: Flow) => void): Flow => {
    const flow = valid();
    change(flow);
    return flow;
  };
  const children = (flow: Flow): Array<Record<string, unknown>> =>
    flow.screens[0]!.layout.children as Array<Record<string, unknown>>;

  it('publishes a valid Flow and sends it, navigating to one of its screens', async () => {
    const { id, errors, published } = await upload(valid());
    expect(errors).toEqual([]);
    expect(published).toBe(true);
    const message = (screen: string, cta = 'Open the form') => ({
      type: 'interactive',
      interactive: {
        type: 'flow',
        body: { text: 'Q?' },
        action: {
          name: 'flow',
          parameters: {
            flow_message_version: '3',
            flow_token: 't',
            flow_id: id,
            flow_cta: cta,
            flow_action: 'navigate',
            flow_action_payload: { screen },
          },
        },
      },
    });
    expect(await send(message('FORM'))).toBe(200);
    expect(await send(message('ELSEWHERE'))).toBe(400);
    expect(await send(message('FORM', 'c'.repeat(21)))).toBe(400);
  });

  it('refuses a missing or unknown version, and no screens', async () => {
    expect((await upload({ screens: valid().screens })).errors).toContain('INVALID_VERSION');
    expect((await upload({ ...valid(), version: '1.0' })).errors).toContain('INVALID_VERSION');
    const none = await upload({ version: '6.3', screens: [] });
    expect(none.errors).toContain('MISSING_REQUIRED_PROPERTY');
    expect(none.published).toBe(false);
  });

  it('refuses a layout that is not SingleColumnLayout, a reserved or repeated screen id, and no terminal screen', async () => {
    expect((await upload(edit((f) => void (f.screens[0]!.layout.type = 'Grid')))).errors).toContain('INVALID_LAYOUT');
    expect((await upload(edit((f) => void (f.screens[0]!.id = 'SUCCESS')))).errors).toContain('INVALID_SCREEN_ID');
    expect((await upload(edit((f) => void f.screens.push(f.screens[0]!)))).errors).toContain('DUPLICATE_SCREEN_ID');
    expect((await upload(edit((f) => void (f.screens[0]!.terminal = false)))).errors).toContain(
      'MISSING_TERMINAL_SCREEN',
    );
  });

  it('refuses unknown component types, a missing name, and a terminal screen without its Footer', async () => {
    expect((await upload(edit((f) => void (children(f)[0]!['type'] = 'Slider')))).errors).toContain(
      'INVALID_COMPONENT_TYPE',
    );
    expect((await upload(edit((f) => void delete children(f)[0]!['name']))).errors).toContain(
      'MISSING_REQUIRED_PROPERTY',
    );
    expect((await upload(edit((f) => void children(f).pop()))).errors).toContain('MISSING_FOOTER');
  });

  it('holds labels and options to the component limits: TextInput 20, Footer 35, option titles 30, Dropdown 1..200', async () => {
    expect((await upload(edit((f) => void (children(f)[0]!['label'] = 'L'.repeat(21))))).errors).toEqual([
      'INVALID_PROPERTY_VALUE',
    ]);
    expect((await upload(edit((f) => void (children(f)[0]!['label'] = 'L'.repeat(20))))).errors).toEqual([]);
    expect((await upload(edit((f) => void (children(f)[2]!['label'] = 'L'.repeat(36))))).errors).toEqual([
      'INVALID_PROPERTY_VALUE',
    ]);
    const titled = (title: string) => edit((f) => void (children(f)[1]!['data-source'] = [{ id: 'o0', title }]));
    expect((await upload(titled('t'.repeat(31)))).errors).toEqual(['INVALID_PROPERTY_VALUE']);
    const many = edit(
      (f) =>
        void (children(f)[1]!['data-source'] = Array.from({ length: 201 }, (_, i) => ({ id: `o${i}`, title: 'x' }))),
    );
    expect((await upload(many)).errors).toEqual(['INVALID_PROPERTY_VALUE']);
  });

  it('refuses a ${data.x} the screen does not declare, a ${form.x} that names no component, and a bad data_api_version', async () => {
    expect((await upload(edit((f) => void (f.screens[0]!.data = {} as never)))).errors).toEqual([
      'INVALID_DYNAMIC_REFERENCE',
    ]);
    const payload = edit(
      (f) => void (children(f)[2]!['on-click-action'] = { name: 'complete', payload: { x: '${form.f9}' } }),
    );
    expect((await upload(payload)).errors).toEqual(['INVALID_DYNAMIC_REFERENCE']);
    expect((await upload({ ...valid(), data_api_version: '2.0' })).errors).toEqual(['INVALID_PROPERTY_VALUE']);
    const endpoint = edit((f) => void (children(f)[2]!['on-click-action'] = { name: 'data_exchange', payload: {} }));
    expect((await upload(endpoint)).errors).toEqual(['MISSING_REQUIRED_PROPERTY']);
    expect((await upload({ ...endpoint, data_api_version: '3.0' })).errors).toEqual([]);
  });
});
