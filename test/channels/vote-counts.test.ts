import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonId, controlsOf, startDiscordWorld, type DiscordWorld } from './discord-harness.js';
import { controls, startSlackWorld, type SlackWorld } from './slack-harness.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';
import { ADA as DISCORD_ADA } from '../fakes/discord-server.js';
import { PERSON as SLACK_PERSON, blockActions } from '../fakes/slack-payloads.js';
import { PERSON as TELEGRAM_PERSON, tapUpdate } from '../fakes/telegram-updates.js';

/**
 * Live vote counts on a quorum question, through the real channels against the strict fakes: after each counted
 * vote the message shows the count with its buttons kept, a burst of votes never shows a count going back, and the
 * deciding vote's outcome edit is the last one.
 */

/** Waits (generously: a loaded two-core host) until `probe` holds. */
async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The yes counts the edits showed, in the order the fake received them ("3 of 5 approved" → 3). */
function approvedCounts(history: string[]): number[] {
  return history.flatMap((text) => {
    const m = /🗳 (\d+) of \d+ approved/.exec(text);
    return m === null ? [] : [Number(m[1])];
  });
}

function expectNonDecreasing(counts: number[]): void {
  for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1] as number);
}

describe('live vote counts on Slack', () => {
  let w: SlackWorld;
  beforeAll(async () => {
    w = await startSlackWorld();
  });
  afterAll(async () => w.close());

  const user = (n: number) => ({ ...SLACK_PERSON, id: `UVOTER${n}`, username: `voter${n}`, name: `voter${n}` });

  it('shows "n of 5 approved" after each vote with the buttons kept, coalesces a burst, then the outcome', async () => {
    const voters = [1, 2, 3, 4, 5, 6].map(user);
    const { id, message } = await w.ask({
      question: 'Release 4.2?',
      answer_format: 'confirm',
      approvers: voters.map((v) => `slack:${v.id}`),
      quorum: { approve: 5, reject: 2 },
    });

    expect((await w.interact(blockActions(message, 'askgate_yes', { user: voters[0] }))).status).toBe(200);
    await until(() => message.text.includes('🗳 1 of 5 approved · 0 of 2 rejected'), 'the first count');
    expect(controls(message)).toBe(2);

    // A burst: three votes at once. Whatever order the edits go out in, none shows fewer than an earlier one,
    // and the last count shown is all four.
    await Promise.all(
      [1, 2, 3].map(async (i) =>
        expect((await w.interact(blockActions(message, 'askgate_yes', { user: voters[i] }))).status).toBe(200),
      ),
    );
    await until(() => message.text.includes('🗳 4 of 5 approved'), 'the count after the burst');
    expect(controls(message)).toBe(2);

    expect((await w.interact(blockActions(message, 'askgate_no', { user: voters[4] }))).status).toBe(200);
    await until(() => message.text.includes('🗳 4 of 5 approved · 1 of 2 rejected'), 'a rejection counted');
    expect((await w.record(id))['status']).toBe('pending');

    expect((await w.interact(blockActions(message, 'askgate_yes', { user: voters[5] }))).status).toBe(200);
    await until(() => message.text.includes('✅ Approved by'), 'the outcome');
    expect(JSON.stringify(message.blocks)).toContain(`✅ Approved by <@${voters[5]?.id}> on Slack`);
    expect(controls(message)).toBe(0);
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: true } });

    const counts = approvedCounts(message.history);
    expect(counts[0]).toBe(1);
    expect(counts.at(-1)).toBe(4);
    expectNonDecreasing(counts);
    // Every edit went through chat.update (the channel's paced method); the outcome is the last of them.
    const updates = w.fake.callsTo('chat.update').filter((c) => c.args['ts'] === message.ts);
    expect(updates.length).toBe(message.history.length - 1);
    expect(String(updates.at(-1)?.args['text'])).toContain('✅ Approved by');
  });
});

describe('live vote counts on Telegram', () => {
  let w: TelegramWorld;
  beforeAll(async () => {
    w = await startTelegramWorld();
  });
  afterAll(async () => w.close());

  const user = (n: number) => ({ ...TELEGRAM_PERSON, id: 700 + n, first_name: `Voter${n}`, username: `voter${n}` });

  it('shows the count after each vote with the keyboard kept; a burst never goes back; then the outcome', async () => {
    const voters = [1, 2, 3, 4].map(user);
    const { id, message } = await w.ask({
      question: 'Rotate the keys?',
      answer_format: 'confirm',
      recipient: freshChat(),
      approvers: voters.map((v) => `telegram:${v.id}`),
      quorum: { approve: 3 },
    });

    expect(await w.send(tapUpdate(message, { label: 'Yes' }, voters[0]))).toBe(200);
    await until(() => message.text.includes('🗳 1 of 3 approved'), 'the first count');
    expect(message.text).not.toContain('rejected');
    expect(message.reply_markup).not.toBeNull();

    await Promise.all(
      [1, 2].map(async (i) => expect(await w.send(tapUpdate(message, { label: 'Yes' }, voters[i]))).toBe(200)),
    );
    await until(() => message.text.includes('✅ Approved by'), 'the outcome');
    const decider = (await w.record(id))['result'] as { answered_by: string };
    const who = voters.find((v) => decider.answered_by === `telegram:${v.id}`);
    expect(message.text).toContain(`✅ Approved by @${who?.username} (telegram:${who?.id}) on Telegram`);
    expect(message.reply_markup).toBeNull();

    const counts = approvedCounts(message.history);
    expect(counts[0]).toBe(1);
    expectNonDecreasing(counts);
    const edits = w.fake.callsTo('editMessageText').filter((c) => c.payload['message_id'] === message.message_id);
    expect(edits.length).toBe(message.history.length - 1);
    expect(String(edits.at(-1)?.payload['text'])).toContain('✅ Approved by');
  });
});

describe('live vote counts on Discord', () => {
  let w: DiscordWorld;
  beforeAll(async () => {
    w = await startDiscordWorld();
  });
  afterAll(async () => w.close());

  const user = (n: number) => ({
    ...DISCORD_ADA,
    id: `13000000000000009${n}`,
    username: `voter${n}`,
    global_name: null,
  });

  it('shows the count with the buttons kept, counts rejections when two are needed, then the outcome', async () => {
    const voters = [1, 2, 3].map(user);
    const { id, message } = await w.ask({
      question: 'Open the gate?',
      answer_format: 'confirm',
      approvers: voters.map((v) => `discord:${v.id}`),
      quorum: { approve: 2, reject: 2 },
    });
    expect((await w.fake.click(message, buttonId(message, 'No'), { user: voters[0] })).status).toBe(200);
    await until(() => message.content.includes('🗳 0 of 2 approved · 1 of 2 rejected'), 'the first count');
    expect(controlsOf(message).length).toBe(2);
    expect((await w.fake.click(message, buttonId(message, 'Yes'), { user: voters[1] })).status).toBe(200);
    await until(() => message.content.includes('🗳 1 of 2 approved · 1 of 2 rejected'), 'the second count');
    expect((await w.fake.click(message, buttonId(message, 'Yes'), { user: voters[2] })).status).toBe(200);
    await until(() => message.content.includes('✅ Approved by'), 'the outcome');
    expect(message.content).toBe(`Open the gate?\n\n✅ Approved by <@${voters[2]?.id}> on Discord`);
    expect(controlsOf(message)).toHaveLength(0);
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: true } });
  });
});
