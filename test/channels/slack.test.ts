import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controls, startSlackWorld, type SlackWorld } from './slack-harness.js';
import { PERSON, blockActions, threadReply } from '../fakes/slack-payloads.js';

/** Every format answered on Slack, end to end: the real gateway, Bolt and WebClient, against the fake Web API. */
describe('slack channel', () => {
  let w: SlackWorld;
  beforeAll(async () => {
    w = await startSlackWorld();
  });
  afterAll(async () => w.close());

  const result = async (id: string): Promise<Record<string, unknown>> => {
    const r = await w.eventually(async () => {
      const rec = await w.record(id);
      return rec['status'] !== 'pending' && rec;
    });
    return r['result'] as Record<string, unknown>;
  };

  it('answers the URL verification handshake with its challenge', async () => {
    const res = await w.event({ type: 'url_verification', token: 'x', challenge: 'c-3po-r2d2' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ challenge: 'c-3po-r2d2' });
  });

  it('confirm: Yes/No buttons; a tap answers true, and the outcome replaces the buttons with who answered', async () => {
    const { id, message } = await w.ask({ question: 'Deploy now?', answer_format: 'confirm' });
    expect(message.blocks.find((b) => b['type'] === 'actions')?.['elements']).toMatchObject([
      { text: { text: 'Yes' } },
      { text: { text: 'No' } },
    ]);
    const res = await w.interact(blockActions(message, 'askgate_yes'));
    expect(res.status).toBe(200);
    const r = await result(id);
    expect(r).toMatchObject({ answer: true, surface: 'slack', answered_by: `slack:${PERSON.id}`, reply_to: null });
    expect(r['params']).toMatchObject({ user_id: PERSON.id, channel_id: message.channel, message_ts: message.ts });
    await w.edited(message);
    expect(controls(message)).toBe(0);
    expect(JSON.stringify(message.blocks)).toContain(`✅ Approved by <@${PERSON.id}> on Slack`);
  });

  it('select: a few short choices are buttons; a tap answers that choice', async () => {
    const { id, message } = await w.ask({
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu-west', 'us-east', 'ap-south'],
    });
    expect(controls(message)).toBe(3);
    await w.interact(blockActions(message, 'askgate_choice_1'));
    expect((await result(id))['answer']).toBe('us-east');
  });

  it('select: past the button limit, one static_select holds every choice; picking one answers it', async () => {
    const choices = Array.from({ length: 12 }, (_, i) => `option ${i}`);
    const { id, message } = await w.ask({ question: 'Pick one', answer_format: 'select', choices });
    const menu = message.blocks.find((b) => b['type'] === 'actions')?.['elements'] as Array<Record<string, unknown>>;
    expect(menu).toHaveLength(1);
    expect(menu[0]).toMatchObject({ type: 'static_select' });
    expect(menu[0]?.['options']).toHaveLength(12);
    await w.interact(blockActions(message, 'askgate_choice_menu', { selected: '7' }));
    expect((await result(id))['answer']).toBe('option 7');
  });

  it("text: a reply in the thread answers it, reply_to the question message, params the files' media_* entries", async () => {
    const { id, message } = await w.ask({ question: 'What went wrong?', answer_format: 'text' });
    expect(JSON.stringify(message.blocks)).toContain('Reply in this thread');
    const res = await w.event(
      threadReply(message, 'the disk filled up', { files: [{ name: 'df.png', mimetype: 'image/png', size: 1234 }] }),
    );
    expect(res.status).toBe(200);
    const r = await result(id);
    expect(r['answer']).toBe('the disk filled up');
    expect(r['reply_to']).toEqual({ message_id: message.ts, status: 'pending', text: 'What went wrong?' });
    expect(r['params']).toMatchObject({
      media_kind: 'image',
      media_file_name: 'df.png',
      media_mime_type: 'image/png',
      media_file_size: '1234',
      media_count: '1',
      user_id: PERSON.id,
      channel_id: message.channel,
      thread_ts: message.ts,
    });
    expect((r['params'] as Record<string, string>)['media_url_private']).toMatch(/^https:\/\/files\.slack\.com\//);
  });

  it('confirm and select by words in the thread: "no" and "2"', async () => {
    const confirm = await w.ask({ question: 'Keep the logs?', answer_format: 'confirm' });
    await w.event(threadReply(confirm.message, 'No.'));
    expect((await result(confirm.id))['answer']).toBe(false);
    const select = await w.ask({ question: 'Which size?', answer_format: 'select', choices: ['S', 'M', 'L'] });
    await w.event(threadReply(select.message, '2'));
    expect((await result(select.id))['answer']).toBe('M');
  });

  it('a reply that does not fit gets a hint in the thread and the question stays pending', async () => {
    const { id, message } = await w.ask({ question: 'Proceed?', answer_format: 'confirm' });
    await w.event(threadReply(message, 'maybe later'));
    const hint = await w.eventually(() => w.fake.messagesIn(message.channel).find((m) => m.thread_ts === message.ts));
    expect(hint.text).toBe('Please answer yes or no.');
    expect((await w.record(id))['status']).toBe('pending');
  });

  it('a retried event (X-Slack-Retry-Num, same event_id) answers once and says nothing twice', async () => {
    const { id, message } = await w.ask({ question: 'Status?', answer_format: 'text' });
    const body = threadReply(message, 'all green');
    expect((await w.event(body)).status).toBe(200);
    const first = await result(id);
    expect((await w.event(body, { retryNum: 1 })).status).toBe(200);
    expect((await w.event(body, { retryNum: 2 })).status).toBe(200);
    expect((await w.record(id))['result']).toEqual(first);
    // Bolt acknowledges before its listener runs, so the 200s above say nothing about what the listener did. A
    // fresh reply (a new event_id) goes through the same listener and meets "already answered", which it says in
    // the thread; once that has been said, a retry processed again would have said it too, so exactly one such
    // message, still one a while later, is what a listener that never saw the retries leaves.
    expect((await w.event(threadReply(message, 'still green'))).status).toBe(200);
    const inThread = () => w.fake.messagesIn(message.channel).filter((m) => m.thread_ts === message.ts);
    await w.eventually(() => inThread().length > 0);
    const deadline = Date.now() + 1_000;
    while (Date.now() < deadline) {
      expect(inThread()).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await w.record(id))['result']).toEqual(first);
  });

  it('a stale signature (6 minutes old) and a wrong one are 401 and change nothing', async () => {
    const { id, message } = await w.ask({ question: 'Signed?', answer_format: 'confirm' });
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await w.interact(blockActions(message, 'askgate_yes'), { timestamp: sixMinutesAgo })).status).toBe(401);
    expect((await w.event(threadReply(message, 'yes'), { timestamp: sixMinutesAgo })).status).toBe(401);
    expect((await w.interact(blockActions(message, 'askgate_yes'), { signature: `v0=${'0'.repeat(64)}` })).status).toBe(
      401,
    );
    expect((await w.event(threadReply(message, 'yes'), { signature: 'v0=nope' })).status).toBe(401);
    expect((await w.record(id))['status']).toBe('pending');
  });

  it('a tap on an answered question tells the person, to them alone', async () => {
    const { message } = await w.ask({ question: 'Twice?', answer_format: 'confirm' });
    // Bob's client still shows the buttons: his tap is built before the outcome edit reaches it.
    const bobsTap = blockActions(message, 'askgate_yes', {
      user: { ...PERSON, id: 'UBOB0002', username: 'bob', name: 'bob' },
    });
    await w.interact(blockActions(message, 'askgate_no'));
    await w.edited(message);
    await w.interact(bobsTap);
    const note = await w.eventually(() =>
      w.fake.callsTo('chat.postEphemeral').find((c) => c.args['user'] === 'UBOB0002'),
    );
    expect(note.args['text']).toBe('This question is already answered.');
  });
});
