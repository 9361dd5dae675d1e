import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_SLACK_TOKEN, startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';

/**
 * The fake Slack Web API refuses what Slack refuses (api.slack.com: Block Kit reference, chat.postMessage,
 * chat.postEphemeral), so askgate's real code meets those refusals in the channel tests.
 */

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => fake?.close());

/** Calls `method` as the WebClient does (form-encoded, objects as JSON); resolves with Slack's `error` or 'ok'. */
async function call(method: string, args: Record<string, unknown>, token = FAKE_SLACK_TOKEN): Promise<string> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const res = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
    body: form.toString(),
  });
  const body = (await res.json()) as { ok: boolean; error?: string };
  return body.ok ? 'ok' : (body.error ?? 'unknown');
}

const plain = (text: string) => ({ type: 'plain_text', text });
const button = (label: string, actionId: string) => ({ type: 'button', text: plain(label), action_id: actionId });
const post = (blocks: unknown) => call('chat.postMessage', { channel: 'C0FAKE1', text: 'Q?', blocks });

describe('the fake Slack refuses what Slack refuses', () => {
  it('checks the whole bot token', async () => {
    expect(await call('auth.test', {}, 'xoxb-someone-else')).toBe('invalid_auth');
    expect(await call('auth.test', {})).toBe('ok');
  });

  it('refuses blocks that are not an array', async () => {
    expect(await post({ type: 'section', text: plain('x') })).toBe('invalid_blocks_format');
  });

  it('refuses a block_id used twice, and an action_id used twice in one block', async () => {
    const section = { type: 'section', block_id: 'b1', text: plain('x') };
    expect(await post([section, { ...section }])).toBe('invalid_blocks');
    expect(await post([{ type: 'actions', block_id: 'a1', elements: [button('Yes', 'go'), button('No', 'go')] }])).toBe(
      'invalid_blocks',
    );
    expect(
      await post([{ type: 'actions', block_id: 'a1', elements: [button('Yes', 'yes'), button('No', 'no')] }]),
    ).toBe('ok');
  });

  it('refuses text objects of the wrong type', async () => {
    expect(await post([{ type: 'header', text: { type: 'mrkdwn', text: '*x*' } }])).toBe('invalid_blocks');
    const mrkdwnButton = { type: 'button', text: { type: 'mrkdwn', text: '*Yes*' }, action_id: 'y' };
    expect(await post([{ type: 'actions', elements: [mrkdwnButton] }])).toBe('invalid_blocks');
    expect(await post([{ type: 'section', text: 'bare string' }])).toBe('invalid_blocks');
    expect(await post([{ type: 'section', text: { type: 'mrkdwn', text: '*fine*' } }])).toBe('ok');
  });

  it('chat.postEphemeral to a channel that does not exist fails', async () => {
    fake.forgetChannel('C0GONE');
    expect(await call('chat.postEphemeral', { channel: 'C0GONE', user: 'UADA0001', text: 'hi' })).toBe(
      'channel_not_found',
    );
    expect(await call('chat.postEphemeral', { channel: 'C0FAKE1', user: 'UADA0001', text: 'hi' })).toBe('ok');
  });
});

/** The same rules met through @slack/web-api's WebClient, the client askgate's Bolt app uses. */
describe('the fake Slack, through the WebClient', () => {
  const client = (): WebClient =>
    new WebClient(FAKE_SLACK_TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
  const error = async (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'ok',
      (e: unknown) => String((e as { data?: { error?: string } }).data?.error ?? e),
    );
  const postBlocks = (blocks: Array<Record<string, unknown>>): Promise<string> =>
    error(client().chat.postMessage({ channel: 'C0FAKE2', text: 'Q?', blocks: blocks as never }));
  const modal = (element: Record<string, unknown>, blockId = 'f:field'): Promise<string> =>
    error(
      client().views.open({
        trigger_id: fake.mintTrigger(),
        view: {
          type: 'modal',
          title: plain('Form') as { type: 'plain_text'; text: string },
          blocks: [{ type: 'input', block_id: blockId, label: plain('Field'), element } as never],
        },
      }),
    );

  it('refuses a block_id or an action_id over 255 characters; 255 are fine', async () => {
    const actions = (blockId: string, actionId: string) => [
      { type: 'actions', block_id: blockId, elements: [button('Yes', actionId)] },
    ];
    expect(await postBlocks(actions('b'.repeat(256), 'yes'))).toBe('invalid_blocks');
    expect(await postBlocks(actions('b'.repeat(255), 'yes'))).toBe('ok');
    expect(await postBlocks(actions('b1', 'a'.repeat(256)))).toBe('invalid_blocks');
    expect(await postBlocks(actions('b2', 'a'.repeat(255)))).toBe('ok');
    // In a modal too: a field's block_id over 255 is refused.
    const text = { type: 'plain_text_input', action_id: 'v' };
    expect(await modal(text, `f:${'n'.repeat(254)}`)).toBe('invalid_arguments');
    expect(await modal(text, `f:${'n'.repeat(253)}`)).toBe('ok');
  });

  it('takes number_input bounds as strings only, and wants is_decimal_allowed', async () => {
    const number = { type: 'number_input', action_id: 'v', is_decimal_allowed: false };
    expect(await modal({ ...number, min_value: '1', max_value: '5' })).toBe('ok');
    expect(await modal({ ...number, min_value: 1, max_value: 5 })).toBe('invalid_arguments');
    expect(await modal({ ...number, min_value: '1.5' })).toBe('invalid_arguments');
    expect(await modal({ ...number, min_value: '6', max_value: '5' })).toBe('invalid_arguments');
    expect(await modal({ type: 'number_input', action_id: 'v' })).toBe('invalid_arguments');
  });

  it('holds inputs to their documented lengths: plain_text_input 3000, a placeholder 150, a hint 2000', async () => {
    const input = { type: 'plain_text_input', action_id: 'v' };
    expect(await modal({ ...input, max_length: 3000, min_length: 0 })).toBe('ok');
    expect(await modal({ ...input, max_length: 3001 })).toBe('invalid_arguments');
    expect(await modal({ ...input, placeholder: plain('p'.repeat(151)) })).toBe('invalid_arguments');
    expect(await modal({ ...input, placeholder: plain('p'.repeat(150)) })).toBe('ok');
  });
});
