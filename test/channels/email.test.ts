import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshAddress, FROM, INBOUND_SECRET, startEmailWorld, type EmailWorld } from './email-harness.js';
import { appleMailReply, newMail, outlookReply, postfixBounce, thunderbirdReply } from './email-mails.js';

/**
 * The email channel on a real SMTP server (smtp-server, in this process) receiving what nodemailer sends, and raw
 * messages posted to its signed inbound door as a relay posts them: what a question's mail holds, replies as Gmail,
 * Apple Mail, Outlook and Thunderbird write them, refusals, delivery status notifications and SMTP's own refusals.
 */

let w: EmailWorld;
beforeAll(async () => {
  w = await startEmailWorld();
});
afterAll(async () => w?.close());

const events = async (id: string): Promise<Array<Record<string, unknown>>> =>
  (await w.http.get(`/api/interactions/${id}/events`)).json['items'] as Array<Record<string, unknown>>;

describe('the question mail', () => {
  it('is one multipart message from EMAIL_FROM with its own Message-ID, the question, and one link per choice', async () => {
    const q = await w.ask({ question: 'Deploy release 2.14 to production?', answer_format: 'confirm' });
    const m = q.message;
    expect(m.parsed.from?.value[0]?.address).toBe(FROM);
    expect(m.to).toEqual([q.to]);
    expect(m.subject).toBe('Deploy release 2.14 to production?');
    expect(m.messageId).toMatch(/^<[0-9a-f]{8}\.[0-9a-f]{24}@example\.com>$/);
    expect((await w.gw.gateway.store.get(q.id))?.delivery).toMatchObject({ message_id: m.messageId, to: q.to });
    expect(String(m.parsed.headers.get('content-type') && m.raw.toString())).toMatch(/multipart\/alternative/);
    expect(m.text).toContain('Deploy release 2.14 to production?');
    expect(m.text).toMatch(/Yes: https:\/\/askgate\.example\.com\/a\/v1\./);
    expect(m.text).toMatch(/No: https:\/\/askgate\.example\.com\/a\/v1\./);
    expect(w.links(m).map((l) => l.label)).toEqual(['Yes', 'No']);
    // No external image, script or stylesheet: nothing loads from elsewhere when the mail is opened.
    expect(m.html).not.toMatch(/<img|<script|<link|src=|url\(/i);
  });

  it('select carries one link per choice; text asks for a reply and carries none; form links its form page', async () => {
    const select = await w.ask({
      question: 'Which rollout?',
      answer_format: 'select',
      choices: ['Canary', 'Blue-green', 'All at once'],
    });
    expect(w.links(select.message).map((l) => l.label)).toEqual(['Canary', 'Blue-green', 'All at once']);
    const text = await w.ask({ question: 'Why did the deploy fail?', answer_format: 'text' });
    expect(w.links(text.message)).toEqual([]);
    expect(text.message.text).toContain('Reply to this email with your answer.');
    const form = await w.ask({
      question: 'Tell us about the incident',
      answer_format: 'form',
      schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
    });
    // The form page is the question's callback page (links are shown rebased on the test gateway's own origin).
    expect(w.links(form.message)).toEqual([
      { label: 'Open the form', url: form.callbackUrl.replace('https://askgate.example.com', w.gw.url) },
    ]);
  });

  it('a malformed recipient is a 400 naming recipient (or the deliver entry), and nothing is sent', async () => {
    const before = w.fake.received.length;
    for (const recipient of ['not-an-address', 'ann@', 'ann lee@example.com', 'ann@example']) {
      const res = await w.http.post('/api/interactions', {
        question: 'Q?',
        answer_format: 'confirm',
        channel: 'email',
        recipient,
      });
      expect(res.status, recipient).toBe(400);
      expect(res.json).toMatchObject({ error: 'invalid_request', field: 'recipient' });
    }
    const res = await w.http.post('/api/interactions', {
      question: 'Q?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'email', recipient: 'ann@example.com' },
        { channel: 'email', recipient: 'bob at example.com' },
      ],
    });
    expect(res.json).toMatchObject({ error: 'invalid_request', field: 'deliver[1].recipient' });
    expect(w.fake.received.length).toBe(before);
  });
});

describe('replies', () => {
  it('Gmail: a leading "Yes" answers a confirm, as email:<address>, reply_to the In-Reply-To', async () => {
    const q = await w.ask({ question: 'Ship it?', answer_format: 'confirm' });
    const res = await w.inbound(w.gmail(q, 'Yes, go ahead.'));
    expect(res).toMatchObject({ status: 200, body: { outcome: 'answered' } });
    expect(await w.record(q.id)).toMatchObject({
      status: 'answered',
      result: {
        answer: true,
        answered_by: `email:${q.to}`,
        surface: 'email',
        reply_to: { message_id: q.message.messageId, status: 'pending', text: 'Ship it?' },
        params: { from: q.to, subject: 'Re: Ship it?' },
      },
    });
  });

  it('Apple Mail (quoted-printable, "Sent from my iPhone", quoted attribution): "No" answers false', async () => {
    const q = await w.ask({ question: 'Restart the database?', answer_format: 'confirm' });
    const raw = appleMailReply({
      inReplyTo: q.message.messageId,
      from: q.to,
      subject: q.message.subject,
      said: 'No.',
      quoted: q.message.text,
    });
    expect((await w.inbound(raw)).status).toBe(200);
    expect(await w.record(q.id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'email' } });
  });

  it('Outlook: the From:/Sent:/To:/Subject: block is cut off; a choice is read by its words', async () => {
    const q = await w.ask({ question: 'Which rollout?', answer_format: 'select', choices: ['Canary', 'Blue-green'] });
    const raw = outlookReply({
      inReplyTo: q.message.messageId,
      from: q.to,
      subject: q.message.subject,
      said: 'blue-green',
      quoted: q.message.text,
    });
    expect((await w.inbound(raw)).status).toBe(200);
    expect(await w.record(q.id)).toMatchObject({ status: 'answered', result: { answer: 'Blue-green' } });
  });

  it('a choice by its number; a text answer keeps only the new text, without signature or quote', async () => {
    const select = await w.ask({
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu-west-1', 'us-east-1'],
    });
    await w.inbound(w.gmail(select, '2'));
    expect(await w.record(select.id)).toMatchObject({ result: { answer: 'us-east-1' } });
    const text = await w.ask({ question: 'Why did it fail?', answer_format: 'text' });
    const said = 'The disk filled up.\nI cleared the old logs.';
    await w.inbound(
      thunderbirdReply({
        inReplyTo: text.message.messageId,
        from: text.to,
        subject: text.message.subject,
        said,
        quoted: text.message.text,
        signature: 'Ann Lee\nPlatform team',
      }),
    );
    expect(await w.record(text.id)).toMatchObject({ status: 'answered', result: { answer: said } });
    const outlook = await w.ask({ question: 'And the fix?', answer_format: 'text' });
    await w.inbound(
      outlookReply({
        inReplyTo: outlook.message.messageId,
        from: outlook.to,
        subject: outlook.message.subject,
        said: 'A bigger disk.',
        quoted: outlook.message.text,
      }),
    );
    expect(await w.record(outlook.id)).toMatchObject({ result: { answer: 'A bigger disk.' } });
  });

  it('a reply to a reminder finds its question through References', async () => {
    const q = await w.ask({ question: 'Still there?', answer_format: 'confirm' });
    const reminder = 'reminder.1@example.com';
    const raw = appleMailReply({
      inReplyTo: `<${reminder}>`,
      references: `${q.message.messageId} <${reminder}>`,
      from: q.to,
      subject: q.message.subject,
      said: 'yes',
      quoted: 'Reminder',
    });
    expect((await w.inbound(raw)).body).toMatchObject({ outcome: 'answered' });
    expect(await w.record(q.id)).toMatchObject({ result: { answer: true, reply_to: { message_id: `<${reminder}>` } } });
  });

  it('a reply that does not fit is told so in the thread, and the question stays pending', async () => {
    const q = await w.ask({ question: 'Proceed?', answer_format: 'confirm' });
    await w.inbound(w.gmail(q, 'Let me think about it'));
    expect((await w.record(q.id))['status']).toBe('pending');
    expect(w.thread(q.message.messageId).map((m) => m.text)).toEqual([
      expect.stringContaining('Please answer yes or no.'),
    ]);
  });

  it('another sender is refused and recorded (answer_refused); nothing changes and nothing is mailed to them', async () => {
    const q = await w.ask({ question: 'Transfer the funds?', answer_format: 'confirm' });
    const res = await w.inbound(w.gmail(q, 'Yes', 'mallory@example.net'));
    expect(res).toMatchObject({ status: 200, body: { outcome: 'refused' } });
    expect((await w.record(q.id))['status']).toBe('pending');
    expect((await events(q.id)).map((e) => [e['type'], e['surface'], e['by']])).toContainEqual([
      'answer_refused',
      'email',
      'email:mallory@example.net',
    ]);
    expect(w.fake.to('mallory@example.net')).toEqual([]);
  });
});

describe('reviews', () => {
  const review = {
    question: 'May I send this email?',
    answer_format: 'review',
    action: {
      name: 'send_email',
      args: { to: 'ada@example.com', subject: 'Quarterly report' },
      description: 'Sends one email from the team account.',
    },
    schema: {
      type: 'object',
      required: ['to', 'subject'],
      properties: { to: { type: 'string' }, subject: { type: 'string' } },
    },
  };

  it('shows the proposed action and links its review page; a reply "Reject, …" rejects with the words after it', async () => {
    const q = await w.ask(review);
    expect(q.message.text).toContain('send_email\nSends one email from the team account.\nto: ada@example.com\n');
    expect(q.message.html).toContain('subject: Quarterly report');
    expect(w.links(q.message)).toEqual([
      { label: 'Open the review', url: q.callbackUrl.replace('https://askgate.example.com', w.gw.url) },
    ]);
    await w.inbound(w.gmail(q, 'Reject, not on a Friday.'));
    expect(await w.record(q.id)).toMatchObject({
      status: 'answered',
      result: { answer: { decision: 'reject', message: 'not on a Friday.' }, answered_by: `email:${q.to}` },
    });
  });

  it('a reply "Approve" from Outlook approves', async () => {
    const q = await w.ask(review);
    const raw = outlookReply({
      inReplyTo: q.message.messageId,
      from: q.to,
      subject: q.message.subject,
      said: 'Approve',
      quoted: q.message.text,
    });
    await w.inbound(raw);
    expect(await w.record(q.id)).toMatchObject({ status: 'answered', result: { answer: { decision: 'approve' } } });
  });
});

describe('the signed door', () => {
  // Neither an unsigned, a wrongly signed nor an other-secret post gets past 401; a non-message type is 400.
  it('refuses what is not signed with EMAIL_INBOUND_SECRET (401) or not a message (400); nothing changes', async () => {
    const q = await w.ask({ question: 'Signed only?', answer_format: 'confirm' });
    const raw = w.gmail(q, 'yes');
    expect((await w.inbound(raw, false)).status).toBe(401);
    expect((await w.inbound(raw, `sha256=${'ab'.repeat(32)}`)).status).toBe(401);
    const { relaySignature } = await import('../fakes/smtp-server.js');
    const other = relaySignature(Buffer.from(raw.replace(/\r?\n/g, '\r\n')), `${INBOUND_SECRET}-other`);
    expect((await w.inbound(raw, other)).status).toBe(401);
    expect((await w.inbound(raw, true, 'text/plain')).status).toBe(400);
    expect((await w.record(q.id))['status']).toBe('pending');
  });
});

describe('delivery', () => {
  it('a bounce (multipart/report; report-type=delivery-status) naming the message makes the question undeliverable', async () => {
    const q = await w.ask({ question: 'Bounced?', answer_format: 'confirm' });
    const res = await w.inbound(
      postfixBounce({ about: q.message.messageId, recipient: q.to, subject: q.message.subject }),
    );
    expect(res).toMatchObject({ status: 200, body: { outcome: 'failed' } });
    const record = await w.record(q.id);
    // It stays pending (an answer by another way still wins), but nobody got it: undeliverable, the delivery failed.
    expect(record).toMatchObject({ status: 'pending', undeliverable: true });
    expect(record['deliveries']).toEqual([
      {
        channel: 'email',
        recipient: q.to,
        message_id: q.message.messageId,
        status: 'failed',
        error: { code: '5.1.1', message: `smtp; 550 5.1.1 <${q.to}>: Recipient address rejected: User unknown` },
      },
    ]);
  });

  it('SMTP 4yz replies are sent again (451 twice, then accepted); a third 4yz in a row fails the ask with 502', async () => {
    const before = w.fake.deferred;
    w.fake.deferNext(2);
    const q = await w.ask({ question: 'Greylisted?', answer_format: 'confirm' });
    expect(w.fake.deferred - before).toBe(2);
    expect(w.fake.received.filter((m) => m.messageId === q.message.messageId)).toHaveLength(1);
    w.fake.deferNext(3, 421);
    const res = await w.http.post('/api/interactions', {
      question: 'Busy?',
      answer_format: 'confirm',
      channel: 'email',
      recipient: freshAddress(),
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: 'email' });
    expect(res.json['message']).toContain('421');
    expect(w.fake.deferred - before).toBe(5);
  });

  it('a 5yz reply is final at once: the only surface is a 502; beside another surface it is that delivery failed', async () => {
    const gone = freshAddress();
    w.fake.reject(gone);
    const before = w.fake.received.length;
    const only = await w.http.post('/api/interactions', {
      question: 'Gone?',
      answer_format: 'confirm',
      channel: 'email',
      recipient: gone,
    });
    expect(only.status).toBe(502);
    expect(only.json['message']).toContain('550');
    const ok = freshAddress();
    const both = await w.http.post('/api/interactions', {
      question: 'One of two?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'email', recipient: ok },
        { channel: 'email', recipient: gone },
      ],
    });
    expect(both.status).toBe(201);
    expect(w.fake.received.length).toBe(before + 1);
    expect((await w.record(both.json['id'] as string))['deliveries']).toEqual([
      expect.objectContaining({ recipient: ok, status: 'sent' }),
      expect.objectContaining({ recipient: gone, status: 'failed' }),
    ]);
  });
});

describe('conversations off', () => {
  it('a new message that answers no question, with no route, changes nothing and is answered with nothing', async () => {
    const from = freshAddress();
    const res = await w.inbound(newMail({ from, subject: 'Hello', said: 'Anyone there?' }));
    expect(res).toMatchObject({ status: 200, body: { outcome: 'not_found' } });
    expect(w.fake.to(from)).toEqual([]);
  });
});
