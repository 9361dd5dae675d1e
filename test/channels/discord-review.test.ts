import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA } from '../fakes/discord-server.js';
import {
  buttonId,
  controlsOf,
  freshChannel,
  modalOf,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-harness.js';
import { hugeReviewAsk, reviewAsk } from './review-fixtures.js';

/**
 * A review on Discord, end to end: @discordjs/rest against the loopback fake (which refuses content over 2000
 * characters, a custom_id over 100, a modal input's value over 4000), interactions signed with Ed25519 and posted to
 * the real endpoint.
 */

let w: DiscordWorld;
beforeAll(async () => {
  w = await startDiscordWorld();
});
afterAll(async () => w.close());

const ask = (extra: Record<string, unknown> = {}) => w.ask(reviewAsk('discord', freshChannel(), extra));

describe('Discord: a review', () => {
  it('shows the action in a code block, the body folded, with a button per decision', async () => {
    const { id, message } = await ask();
    expect(message.content).toMatch(/^May I send this email\?\n\n\*\*send_email\*\*\n```\nSends one email/);
    expect(message.content).toContain('to: ada@example.com');
    expect(message.content).toMatch(/body: Hello team, ⏎ The quarterly numbers are attached; .*…\n/);
    expect([...message.content].length).toBeLessThanOrEqual(2000);
    expect(message.content).toMatch(/Press “Approve”, “Edit”, “Reject” or “Respond”\.$/);
    expect(controlsOf(message).map((c) => [c['label'], c['style'], c['custom_id']])).toEqual([
      ['Approve', 3, `ag:p:${id}`],
      ['Edit', 1, `ag:e:${id}`],
      ['Reject', 4, `ag:r:${id}`],
      ['Respond', 2, `ag:o:${id}`],
    ]);
  });

  it('fits the largest review into the 2000-character content, the rest of the arguments counted', async () => {
    const { message } = await w.ask(hugeReviewAsk('discord', freshChannel()));
    expect([...message.content].length).toBeLessThanOrEqual(2000);
    expect(message.content).toMatch(/… and \d+ more\n```\n\nPress “Approve”, “Reject” or “Respond”\.$/);
  });

  it('offers only the decisions asked for', async () => {
    const { message } = await ask({ decisions: ['approve', 'reject'] });
    expect(controlsOf(message).map((c) => c['label'])).toEqual(['Approve', 'Reject']);
  });

  it('approves on one click; the message then names who approved and loses its buttons', async () => {
    const { id, message } = await ask();
    const clicked = await w.fake.click(message, buttonId(message, 'Approve'));
    expect(clicked.response).toEqual({ type: 6 });
    expect((await w.record(id))['result']).toMatchObject({
      answer: { decision: 'approve' },
      answered_by: `discord:${ADA.id}`,
    });
    await w.edited(message);
    expect(message.content).toContain(`✅ Approved by <@${ADA.id}> on Discord`);
    expect(message.components).toEqual([]);
  });

  it('rejects on one click', async () => {
    const { id, message } = await ask();
    await w.fake.click(message, buttonId(message, 'Reject'));
    expect((await w.record(id))['result']).toMatchObject({ answer: { decision: 'reject' } });
    await w.edited(message);
    expect(message.content).toContain(`❌ Rejected by <@${ADA.id}> on Discord`);
  });

  it('Respond opens a modal whose words answer as respond', async () => {
    const { id, message } = await ask();
    const modal = modalOf(await w.fake.click(message, buttonId(message, 'Respond')));
    expect(modal.inputs).toMatchObject([{ label: 'Your words for the agent', style: 2, required: true }]);
    await w.fake.submit(modal, { answer: 'Send it from the finance account' });
    expect((await w.record(id))['result']).toMatchObject({
      answer: { decision: 'respond', message: 'Send it from the finance account' },
    });
    await w.edited(message);
    expect(message.content).toContain(`💬 Responded by <@${ADA.id}> on Discord: “Send it from the finance account”`);
  });

  it('Edit opens a modal pre-filled with the proposed arguments; a refused value says so, a good edit answers', async () => {
    const { id, message } = await ask();
    const modal = modalOf(await w.fake.click(message, buttonId(message, 'Edit')));
    expect(modal.title).toBe('Edit send_email');
    expect(modal.inputs.map((i) => [i['label'], i['value']?.toString().slice(0, 30)])).toEqual([
      ['To', 'ada@example.com'],
      ['Subject', 'Quarterly report'],
      ['Body', 'Hello team,\nThe quarterly numb'],
      ['Priority', 'high'],
    ]);
    // The 5600-character body starts cut to the 4000 a Discord input holds.
    expect([...(modal.inputs[2]?.['value'] as string)]).toHaveLength(4000);
    const bad = await w.fake.submit(modal, { f0: 'board@', f1: 'Q3', f2: 'Short.', f3: 'normal' });
    expect(bad.ephemeral).toMatch(/^To: .*Press “Edit” to try again\.$/);
    expect((await w.record(id))['status']).toBe('pending');
    const again = modalOf(await w.fake.click(message, buttonId(message, 'Edit')));
    await w.fake.submit(again, { f0: 'board@example.com', f1: 'Q3 (final)', f2: 'Short.', f3: 'normal' });
    expect((await w.record(id))['result']).toMatchObject({
      answer: {
        decision: 'edit',
        args: { to: 'board@example.com', subject: 'Q3 (final)', body: 'Short.', priority: 'normal' },
      },
    });
    await w.edited(message);
    expect(message.content).toContain(`✏️ Edited by <@${ADA.id}> on Discord`);
    expect(message.content).toContain('subject: Q3 (final)');
  });
});
