import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSON, blockActions, state, threadReply, viewSubmission } from '../fakes/slack-payloads.js';
import type { FakeView } from '../fakes/slack-server.js';
import { ACTION, hugeReviewAsk, reviewAsk } from './review-fixtures.js';
import { freshChannel, startSlackWorld, type SlackWorld } from './slack-harness.js';

/**
 * A review on Slack, end to end: Bolt and the Web API client against the loopback fake (which refuses a section
 * over 3000 characters, an id over 255, an initial option that is not one of the element's), interactions and
 * events posted signed to the real doors.
 */

let w: SlackWorld;
beforeAll(async () => {
  w = await startSlackWorld();
});
afterAll(async () => w.close());

type Block = Record<string, unknown>;
const sectionTexts = (blocks: Block[]): string[] =>
  blocks.filter((b) => b['type'] === 'section').map((b) => (b['text'] as { text: string }).text);
const buttonsOf = (blocks: Block[]): Block[] =>
  blocks.filter((b) => b['type'] === 'actions').flatMap((b) => b['elements'] as Block[]);

const ask = (extra: Record<string, unknown> = {}) => w.ask(reviewAsk('slack', freshChannel(), extra));

describe('Slack: a review', () => {
  it('shows the action in its own section (bold name, arguments in a code block, the body folded)', async () => {
    const { id, message } = await ask();
    const [question, action] = sectionTexts(message.blocks);
    expect(question).toBe('May I send this email?');
    expect(action).toMatch(/^\*send_email\*\n```Sends one email from the team account\.\nto: ada@example\.com\n/);
    expect(action).toContain('subject: Quarterly report');
    expect(action).toMatch(/body: Hello team, ⏎ The quarterly numbers are attached; .*…\n/);
    expect(action).toContain('priority: high');
    expect([...(action ?? '')].length).toBeLessThanOrEqual(3000);
    expect(JSON.stringify(message.blocks)).toContain('Reply in this thread with words for the agent.');
    expect(buttonsOf(message.blocks).map((b) => [b['action_id'], b['style']])).toEqual([
      ['askgate_approve', 'primary'],
      ['askgate_edit', undefined],
      ['askgate_reject', 'danger'],
    ]);
    expect(message.blocks.find((b) => b['type'] === 'actions')?.['block_id']).toBe(`askgate:${id}`);
  });

  it('fits the largest review: its action section within 3000 characters, the rest of the arguments counted', async () => {
    const { message } = await w.ask(hugeReviewAsk('slack', freshChannel()));
    const action = sectionTexts(message.blocks)[1] ?? '';
    expect([...action].length).toBeLessThanOrEqual(3000);
    expect(action).toMatch(/… and \d+ more```$/);
  });

  it('offers no Edit button without edit in decisions', async () => {
    const { message } = await ask({ decisions: ['approve', 'reject'] });
    expect(buttonsOf(message.blocks).map((b) => b['action_id'])).toEqual(['askgate_approve', 'askgate_reject']);
  });

  it('approves on one tap, and the message names who approved with no buttons left', async () => {
    const { id, message } = await ask();
    expect((await w.interact(blockActions(message, 'askgate_approve'))).status).toBe(200);
    await w.edited(message);
    expect((await w.record(id))['result']).toMatchObject({
      answer: { decision: 'approve' },
      answered_by: `slack:${PERSON.id}`,
    });
    expect(JSON.stringify(message.blocks)).toContain(`✅ Approved by <@${PERSON.id}> on Slack`);
    expect(sectionTexts(message.blocks)[1]).toContain('*send_email*');
    expect(buttonsOf(message.blocks)).toEqual([]);
  });

  it('rejects on one tap', async () => {
    const { id, message } = await ask();
    await w.interact(blockActions(message, 'askgate_reject'));
    await w.edited(message);
    expect((await w.record(id))['result']).toMatchObject({ answer: { decision: 'reject' } });
    expect(JSON.stringify(message.blocks)).toContain(`❌ Rejected by <@${PERSON.id}> on Slack`);
  });

  it('reads thread replies: "no, …" rejects with its reason, other words respond', async () => {
    const first = await ask();
    expect((await w.event(threadReply(first.message, 'no, not before the board meeting'))).status).toBe(200);
    await w.edited(first.message);
    expect((await w.record(first.id))['result']).toMatchObject({
      answer: { decision: 'reject', message: 'not before the board meeting' },
    });
    expect(JSON.stringify(first.message.blocks)).toContain('“not before the board meeting”');
    const second = await ask();
    await w.event(threadReply(second.message, 'Use the finance template'));
    await w.edited(second.message);
    expect((await w.record(second.id))['result']).toMatchObject({
      answer: { decision: 'respond', message: 'Use the finance template' },
    });
    expect(JSON.stringify(second.message.blocks)).toContain(`💬 Responded by <@${PERSON.id}> on Slack`);
  });

  const openEdit = async (): Promise<{
    id: string;
    view: FakeView;
    message: Awaited<ReturnType<typeof ask>>['message'];
  }> => {
    const { id, message } = await ask();
    const trigger = w.fake.mintTrigger();
    expect((await w.interact(blockActions(message, 'askgate_edit', { triggerId: trigger }))).status).toBe(200);
    return { id, message, view: await w.eventually(() => w.fake.viewOpenedBy(trigger)) };
  };

  it('Edit opens a modal pre-filled with the proposed arguments', async () => {
    const { view } = await openEdit();
    const inputs = (view.view['blocks'] as Block[]).filter((b) => b['type'] === 'input');
    const element = (name: string): Block => inputs.find((b) => b['block_id'] === `f:${name}`)?.['element'] as Block;
    expect(element('to')).toMatchObject({ type: 'email_text_input', initial_value: 'ada@example.com' });
    expect(element('subject')).toMatchObject({ type: 'plain_text_input', initial_value: 'Quarterly report' });
    // Slack's inputs hold 3000 characters: the long body starts cut to that, for the person to shorten.
    expect((element('body')['initial_value'] as string).startsWith('Hello team,\nThe quarterly')).toBe(true);
    expect([...(element('body')['initial_value'] as string)]).toHaveLength(3000);
    expect(element('priority')).toMatchObject({
      type: 'radio_buttons',
      initial_option: { value: 'o2', text: { type: 'plain_text', text: 'high' } },
    });
    expect(view.view['title']).toMatchObject({ text: 'Edit the action' });
  });

  it('a submitted edit answers with the edited arguments; an argument the schema refuses keeps the modal open on its field', async () => {
    const { id, view, message } = await openEdit();
    const values = {
      to: { type: 'email_text_input', value: 'board@example.com' },
      subject: { type: 'plain_text_input', value: 'Q3 report (final)' },
      body: { type: 'plain_text_input', value: 'Short now.' },
      priority: { type: 'radio_buttons', selected_option: { value: 'o1' } },
    };
    const broken = await w.interact(
      viewSubmission(view, state({ ...values, subject: { type: 'plain_text_input', value: 's'.repeat(81) } })),
    );
    expect(broken.json).toMatchObject({ response_action: 'errors', errors: { 'f:subject': expect.any(String) } });
    expect((await w.record(id))['status']).toBe('pending');
    const ok = await w.interact(viewSubmission(view, state(values)));
    expect(ok.status).toBe(200);
    expect((await w.record(id))['result']).toMatchObject({
      answer: {
        decision: 'edit',
        args: { to: 'board@example.com', subject: 'Q3 report (final)', body: 'Short now.', priority: 'normal' },
      },
    });
    await w.edited(message);
    expect(JSON.stringify(message.blocks)).toContain(`✏️ Edited by <@${PERSON.id}> on Slack`);
    expect(sectionTexts(message.blocks)[1]).toContain('subject: Q3 report (final)');
    expect(sectionTexts(message.blocks)[1]).not.toContain(ACTION.args.subject);
  });
});
