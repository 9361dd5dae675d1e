import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonId, modalOf, startDiscordWorld, type DiscordWorld } from './discord-harness.js';

/**
 * Discord drops an interaction whose first response comes more than 3 seconds after the event (the fake refuses it
 * with 10062, as Discord invalidates the token: https://discord.com/developers/docs/interactions/receiving-and-
 * responding#responding-to-an-interaction), and the person then sees "This interaction failed". So every kind of
 * answer askgate gives in the HTTP response — the acknowledgement of a click, a modal, an ephemeral note — must
 * reach Discord in time. The fake's clock is the wall clock here: the gateway answers in milliseconds, so the 3 s
 * are Discord's deadline, not a margin.
 */

describe('Discord: the first response to an interaction arrives within 3 seconds', () => {
  let w: DiscordWorld;
  beforeAll(async () => {
    w = await startDiscordWorld();
  });
  afterAll(async () => w?.close());

  it('a click on Yes is acknowledged in time, and answers the question', async () => {
    const { id, message } = await w.ask({ question: 'In time?', answer_format: 'confirm' });
    const click = await w.fake.click(message, buttonId(message, 'Yes'));
    expect(click.refused).toBeNull();
    expect(click.response).toEqual({ type: 6 });
    expect((await w.record(id))['status']).toBe('answered');
  });

  it('the Answer button opens its modal in time', async () => {
    const { message } = await w.ask({ question: 'Why?', answer_format: 'text' });
    const click = await w.fake.click(message, buttonId(message, 'Answer'));
    expect(click.refused).toBeNull();
    expect(modalOf(click).inputs).toHaveLength(1);
  });

  it('a late click on an answered question is told so, in time', async () => {
    const { message } = await w.ask({ question: 'Twice?', answer_format: 'confirm' });
    expect((await w.fake.click(message, buttonId(message, 'No'))).refused).toBeNull();
    const again = await w.fake.click(message, buttonId(message, 'Yes'));
    expect(again.refused).toBeNull();
    expect(again.ephemeral).toBe('This question is already answered.');
  });
});
