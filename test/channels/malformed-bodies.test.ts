import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postTwilio } from '../fakes/twilio-server.js';
import { APP_SECRET } from '../fakes/whatsapp-webhooks.js';
import { SIGNING_SECRET, startSlackWorld, type SlackWorld } from './slack-harness.js';
import { PUBLIC_BASE, startTwilioWorld, type TwilioWorld } from './twilio-harness.js';
import { startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';

/**
 * A body whose signature verifies but which is not the platform's is 400 `invalid_request` naming the body (the
 * channel READMEs and docs/adding-a-channel.md), not a 200 that drops it nor a 500; and it changes nothing.
 */

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

function expectRefusedAsMalformed(answer: Answer, channel: string): void {
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  expect(answer.json).toMatchObject({ error: 'invalid_request', field: 'body' });
  expect(answer.json['message']).toContain(`not a ${channel} webhook`);
}

describe('Slack: a verified body that is not Slack’s', () => {
  let w: SlackWorld;
  beforeAll(async () => {
    w = await startSlackWorld();
  });
  afterAll(async () => w?.close());

  const signed = (path: string, body: string, contentType: string): Promise<Answer> => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return fetch(`${w.gw.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signature,
      },
      body,
    }).then(answerOf);
  };

  it('is 400 at the events door: not JSON, not an object, an event_callback with no event', async () => {
    const { id } = await w.ask({ question: 'Untouched?', answer_format: 'confirm' });
    const calls = w.fake.calls.length;
    for (const body of ['{"type":"event_callback",', '[1,2]', '{"type":"event_callback","event_id":"Ev0MALFORMED"}'])
      expectRefusedAsMalformed(await signed('/channels/slack/events', body, 'application/json'), 'slack');
    expect((await w.record(id))['status']).toBe('pending');
    expect(w.fake.calls.length).toBe(calls);
  });

  it('is 400 at the interactions door: no payload field, a payload that is not JSON, one with no type', async () => {
    const form = 'application/x-www-form-urlencoded';
    for (const body of ['text=hello', 'payload=%7Bnot-json', `payload=${encodeURIComponent('{"user":{}}')}`])
      expectRefusedAsMalformed(await signed('/channels/slack/interactions', body, form), 'slack');
  });
});

describe('WhatsApp: a verified body that is not a WhatsApp webhook', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld();
  });
  afterAll(async () => w?.close());

  it('is 400: not JSON, another object type, a message with no id or from', async () => {
    const { id } = await w.ask({ question: 'Untouched?', answer_format: 'confirm' });
    const sent = w.fake.sent.length;
    const noFrom = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba',
          changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.X' }] } }],
        },
      ],
    });
    for (const raw of ['{"object":', JSON.stringify({ object: 'page', entry: [] }), noFrom]) {
      const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
      const res = await fetch(`${w.gw.url}/channels/whatsapp/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: raw,
      });
      expectRefusedAsMalformed(await answerOf(res), 'whatsapp');
    }
    expect((await w.record(id))['status']).toBe('pending');
    expect(w.fake.sent.length).toBe(sent);
  });
});

describe('Twilio: a verified body that is not a Twilio webhook', () => {
  let w: TwilioWorld;
  beforeAll(async () => {
    w = await startTwilioWorld();
  });
  afterAll(async () => w?.close());

  it('is 400 at the message door without MessageSid or From, and at the status door without a status', async () => {
    const { id, to } = await w.ask({ question: 'Untouched?', answer_format: 'confirm' });
    const sent = w.fake.sent.length;
    const refused = async (path: string, params: Record<string, string>): Promise<void> => {
      const res = await postTwilio(w.gw.url, PUBLIC_BASE, path, params);
      expectRefusedAsMalformed({ status: res.status, json: JSON.parse(res.body) as Record<string, unknown> }, 'twilio');
    };
    await refused('/channels/twilio/sms', { From: to, Body: 'yes' });
    await refused('/channels/twilio/sms', { MessageSid: `SM${'0'.repeat(32)}`, Body: 'yes' });
    await refused('/channels/twilio/status', { MessageSid: `SM${'1'.repeat(32)}` });
    expect((await w.record(id))['status']).toBe('pending');
    expect(w.fake.sent.length).toBe(sent);
  });
});
