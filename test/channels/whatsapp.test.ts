import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, freshNumber, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';
import { GraphClient, GraphError } from '../../channels/whatsapp/graph-client.js';
import { GRAPH_TOKEN } from '../fakes/whatsapp-graph.js';
import {
  PHONE_NUMBER_ID,
  VERIFY_TOKEN,
  buttonReply,
  imageReply,
  inboundId,
  listReply,
  statusUpdate,
  textReply,
} from '../fakes/whatsapp-webhooks.js';

type Rec = Record<string, unknown>;
const interactive = (m: { payload: Rec }): Rec => m.payload['interactive'] as Rec;
const action = (m: { payload: Rec }): Rec => interactive(m)['action'] as Rec;
const result = (r: Rec): Rec => r['result'] as Rec;

describe('whatsapp channel over the fake Graph API', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld({ WHATSAPP_TEMPLATE_NAME: 'askgate_question' });
  });
  afterAll(async () => w.close());

  it('tells a number with no open question and no route so, quoting its message, and stores nothing', async () => {
    const from = freshNumber();
    const body = textReply(from, 'hello?');
    const before = (await w.http.get('/api/interactions?status=pending&limit=200')).json['items'] as unknown[];
    expect(await w.send(body)).toBe(200);
    const told = await w.replyTo(from, inboundId(body));
    expect(bodyOf(told)).toBe('There is no open question to answer.');
    const after = (await w.http.get('/api/interactions?status=pending&limit=200')).json['items'] as unknown[];
    expect(after).toHaveLength(before.length);
  });

  it('confirm: two reply buttons; a tap on Yes answers true', async () => {
    const q = await w.ask({ question: 'Deploy now?', answer_format: 'confirm' });
    const buttons = action(q.message)['buttons'] as Array<{ reply: { id: string; title: string } }>;
    expect(buttons.map((b) => b.reply.title)).toEqual(['Yes', 'No']);
    expect(await w.send(buttonReply(q.to, q.message.id, buttons[0]!.reply.id, 'Yes'))).toBe(200);
    const r = await w.record(q.id);
    expect(result(r)).toMatchObject({
      answer: true,
      surface: 'whatsapp',
      answered_by: `whatsapp:+${q.to}`,
      reply_to: null,
    });
    expect(result(r)['params']).toMatchObject({
      from: q.to,
      context_id: q.message.id,
      button_title: 'Yes',
      profile_name: 'Ada Person',
    });
  });

  it('a question on two numbers is answered by a tap on the second, as that number', async () => {
    const [first, second] = [freshNumber(), freshNumber()];
    const asked = await w.http.post('/api/interactions', {
      question: 'Approve the refund?',
      answer_format: 'confirm',
      timeout: 600,
      deliver: [
        { channel: 'whatsapp', recipient: `+${first}` },
        { channel: 'whatsapp', recipient: `+${second}` },
      ],
    });
    expect(asked.status, JSON.stringify(asked.json)).toBe(201);
    const q = { id: asked.json['id'] as string };
    const toSecond = w.fake.sentTo(second).find((m) => m.payload['type'] === 'interactive');
    expect(toSecond).toBeDefined();
    const buttons = action(toSecond!)['buttons'] as Array<{ reply: { id: string; title: string } }>;
    expect(await w.send(buttonReply(second, toSecond!.id, buttons[0]!.reply.id, 'Yes'))).toBe(200);
    expect(result(await w.record(q.id))).toMatchObject({ answer: true, answered_by: `whatsapp:+${second}` });
  });

  it('select of 3: reply buttons with titles cut to 20 characters; the tap gives back the whole choice', async () => {
    const choices = ['Ship it to production today', 'Wait for the review', 'Never'];
    const q = await w.ask({ question: 'Which?', answer_format: 'select', choices });
    const buttons = action(q.message)['buttons'] as Array<{ reply: { id: string; title: string } }>;
    expect(buttons.map((b) => [...b.reply.title].length).every((n) => n <= 20)).toBe(true);
    expect(buttons[0]!.reply.title).toBe('Ship it to producti…');
    await w.send(buttonReply(q.to, q.message.id, buttons[0]!.reply.id, buttons[0]!.reply.title));
    expect(result(await w.record(q.id))['answer']).toBe(choices[0]);
  });

  it('select of 4..10: a list whose rows keep 24 characters and the rest in the description; a row tap answers', async () => {
    const choices = ['alpha', 'bravo', 'a rather long choice that does not fit a row title', 'delta', 'echo'];
    const q = await w.ask({ question: 'Pick', answer_format: 'select', choices });
    expect(interactive(q.message)['type']).toBe('list');
    const rows = (action(q.message)['sections'] as Array<{ rows: Array<Record<string, string>> }>)[0]!.rows;
    expect(rows).toHaveLength(5);
    expect([...rows[2]!['title']!].length).toBe(24);
    expect(rows[2]!['description']).toContain('does not fit');
    await w.send(listReply(q.to, q.message.id, rows[2]!['id']!, rows[2]!['title']!));
    expect(result(await w.record(q.id))['answer']).toBe(choices[2]);
  });

  it('select beyond 10: numbered text, answered by a reply naming the number', async () => {
    const choices = Array.from({ length: 12 }, (_, i) => `option ${i + 1}`);
    const q = await w.ask({ question: 'Which one?', answer_format: 'select', choices });
    expect(q.message.payload['type']).toBe('text');
    expect(bodyOf(q.message)).toContain('12. option 12');
    await w.send(textReply(q.to, '11', q.message.id));
    expect(result(await w.record(q.id))['answer']).toBe('option 11');
  });

  it('text: a reply quoting the question answers it; statuses update the delivery status reply_to reports', async () => {
    const q = await w.ask({ question: 'What is the ticket number?', answer_format: 'text' });
    await w.send(statusUpdate(q.message.id, q.to, 'delivered'));
    await w.send(statusUpdate(q.message.id, q.to, 'read'));
    // A late "delivered" never moves a read message back.
    await w.send(statusUpdate(q.message.id, q.to, 'delivered'));
    expect((await w.gw.gateway.store.get(q.id))?.delivery?.['status']).toBe('read');
    await w.send(textReply(q.to, 'INC-4242', q.message.id));
    expect(result(await w.record(q.id))).toMatchObject({
      answer: 'INC-4242',
      reply_to: { message_id: q.message.id, status: 'read', text: 'What is the ticket number?' },
    });
  });

  it('a photo with a caption answers a text question, with media_* params (from the media lookup too)', async () => {
    w.fake.addMedia('1234567890', { mime_type: 'image/jpeg', sha256: 'c2hh', file_size: 48213 });
    const q = await w.ask({ question: 'Send a photo of the meter', answer_format: 'text' });
    await w.send(imageReply(q.to, '1234567890', 'meter reading 1234', q.message.id));
    const r = result(await w.record(q.id));
    expect(r['answer']).toBe('meter reading 1234');
    expect(r['params']).toMatchObject({
      media_kind: 'image',
      media_id: '1234567890',
      media_mime_type: 'image/jpeg',
      media_caption: 'meter reading 1234',
      media_file_size: '48213',
    });
    expect((r['params'] as Rec)['media_url']).toMatch(/^https:\/\/lookaside\.fbsbx\.com\//);
  });

  it('a duplicate message id is ignored: the second copy changes nothing', async () => {
    const q = await w.ask({ question: 'Name?', answer_format: 'text' });
    const body = textReply(q.to, 'first', q.message.id);
    await w.send(body);
    const again = JSON.parse(JSON.stringify(body).replace('"first"', '"second"')) as Rec;
    expect(inboundId(again)).toBe(inboundId(body));
    await w.send(again);
    expect(result(await w.record(q.id))['answer']).toBe('first');
    expect(w.fake.sentTo(q.to).filter((m) => /already answered/.test(bodyOf(m)))).toHaveLength(0);
  });

  it("a reply from another number does not answer someone else's question", async () => {
    const q = await w.ask({ question: 'Yours?', answer_format: 'confirm' });
    await w.send(textReply('19990000000', 'yes', q.message.id));
    expect((await w.record(q.id))['status']).toBe('pending');
  });

  it('signature: a body signed with another secret, or not at all, is 401', async () => {
    const q = await w.ask({ question: 'Signed?', answer_format: 'confirm' });
    expect(await w.send(textReply(q.to, 'yes', q.message.id), null)).toBe(401);
    expect(await w.send(textReply(q.to, 'yes', q.message.id), `sha256=${'ab'.repeat(32)}`)).toBe(401);
    expect((await w.record(q.id))['status']).toBe('pending');
  });

  it('the verification handshake echoes hub.challenge for the right token and is 403 otherwise', async () => {
    const ok = await fetch(
      `${w.gw.url}/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const bad = await fetch(
      `${w.gw.url}/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
    );
    expect(bad.status).toBe(403);
  });

  it('outside the 24-hour window (131047) the configured template carries the question; a reply answers it', async () => {
    const to = '15557770001';
    w.fake.outsideWindow(to);
    const q = await w.ask({ question: 'Approve the invoice?', answer_format: 'confirm', recipient: `+${to}` });
    expect(q.message.payload['type']).toBe('template');
    expect(JSON.stringify(q.message.payload['template'])).toContain('Approve the invoice?');
    expect((await w.gw.gateway.store.get(q.id))?.delivery?.['via']).toBe('template');
    await w.send(textReply(to, 'yes', q.message.id));
    expect(result(await w.record(q.id))['answer']).toBe(true);
  });

  it('a select outside the window goes out as the template with its numbered choices on one line; "2" answers it', async () => {
    const to = '15557770002';
    w.fake.outsideWindow(to);
    // The Cloud API refuses a template parameter with a new line, a tab or more than 4 spaces in a row (132018).
    const q = await w.ask({
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu', 'us'],
      recipient: `+${to}`,
    });
    expect(q.message.payload['type']).toBe('template');
    const template = q.message.payload['template'] as { components: Array<{ parameters: Array<{ text: string }> }> };
    const text = template.components[0]?.parameters[0]?.text ?? '';
    expect(text).toContain('Which region?');
    expect(text).toMatch(/1\. eu.*2\. us/);
    await w.send(textReply(to, '2', q.message.id));
    expect(result(await w.record(q.id))['answer']).toBe('us');
  });
});

describe('whatsapp without a template', () => {
  it('outside the 24-hour window the ask is refused with that reason', async () => {
    const w = await startWhatsAppWorld();
    try {
      w.fake.outsideWindow('15557770002');
      const res = await w.http.post('/api/interactions', {
        question: 'Hi?',
        answer_format: 'confirm',
        channel: 'whatsapp',
        recipient: '+15557770002',
      });
      expect(res.status).toBe(502);
      expect(res.json['message']).toMatch(/24-hour customer-service window \(131047\).*WHATSAPP_TEMPLATE_NAME/);
    } finally {
      await w.close();
    }
  });
});

describe('graph client', () => {
  it("retries a throttled send (130429, 131056), then reports the refusal with Meta's code", async () => {
    const w = await startWhatsAppWorld();
    try {
      const client = new GraphClient({ apiUrl: w.fake.apiUrl, token: GRAPH_TOKEN, throttleDelayMs: 0 });
      w.fake.failNext(130429);
      w.fake.failNext(131056);
      const sent = await client.sendMessage(PHONE_NUMBER_ID, { to: '15550001111', type: 'text', text: { body: 'hi' } });
      expect(sent.messageId).toMatch(/^wamid\./);
      w.fake.failNext(130429, 3);
      const err = await client
        .sendMessage(PHONE_NUMBER_ID, { to: '15550001111', type: 'text', text: { body: 'hi' } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GraphError);
      expect(err).toMatchObject({ kind: 'refused', code: 130429 });
      expect(String((err as Error).message)).not.toContain(GRAPH_TOKEN);
      const offline = new GraphClient({ apiUrl: 'http://127.0.0.1:1/v21.0', token: GRAPH_TOKEN });
      expect(
        await offline
          .sendMessage(PHONE_NUMBER_ID, { to: '1', type: 'text', text: { body: 'x' } })
          .catch((e: unknown) => e),
      ).toMatchObject({ kind: 'network' });
    } finally {
      await w.close();
    }
  });
});
