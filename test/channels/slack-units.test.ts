import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderQuestion } from '../../channels/slack/blocks.js';
import { RenderLimitError } from '../../channels/slack/limits.js';
import { buildFormView, checkSubmission } from '../../channels/slack/modal.js';
import { SlackChannel } from '../../channels/slack/plugin.js';
import { signSlackRequest, verify } from '../../channels/slack/verify.js';
import { filesParams } from '../../channels/slack/webhook.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = 1_531_420_618;

describe('slack verify', () => {
  const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fweather';
  const headers = (timestamp: number, signature = signSlackRequest(SECRET, timestamp, body)) => ({
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': signature,
  });

  it('accepts a body signed with the secret inside the five-minute window', () => {
    expect(verify({ secret: SECRET, rawBody: body, headers: headers(NOW), now: (NOW + 299) * 1000 })).toEqual({
      ok: true,
    });
  });

  it('refuses a stale request (6 minutes old) even with a correct signature', () => {
    expect(verify({ secret: SECRET, rawBody: body, headers: headers(NOW), now: (NOW + 360) * 1000 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/five minutes/),
    });
  });

  it('refuses a wrong signature, a changed body, and missing headers', () => {
    expect(
      verify({ secret: SECRET, rawBody: body, headers: headers(NOW, `v0=${'a'.repeat(64)}`), now: NOW * 1000 }).ok,
    ).toBe(false);
    expect(verify({ secret: SECRET, rawBody: `${body}&x=1`, headers: headers(NOW), now: NOW * 1000 }).ok).toBe(false);
    expect(verify({ secret: 'other', rawBody: body, headers: headers(NOW), now: NOW * 1000 }).ok).toBe(false);
    expect(verify({ secret: SECRET, rawBody: body, headers: {}, now: NOW * 1000 }).ok).toBe(false);
  });

  it('lives in a module that imports neither the core nor the Slack SDK', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'channels', 'slack', 'verify.ts'), 'utf8');
    const imports = source.split('\n').filter((l) => /^\s*import\b/.test(l));
    // node:crypto, and the channels' own pure HTTP types (channels/http.ts, itself held by the boundary test).
    expect(imports).toEqual([
      "import { createHmac, timingSafeEqual } from 'node:crypto';",
      "import { ACCEPTED, headerOf, refused, textOf, type VerifyInput, type VerifyResult } from '../http.js';",
    ]);
  });
});

const interaction = (over: Partial<StoredInteraction>): StoredInteraction =>
  ({
    id: 'AbCdEfGhIjKlMnOp',
    question: 'Q?',
    answer_format: 'form',
    choices: null,
    schema: null,
    status: 'pending',
    result: null,
    ...over,
  }) as StoredInteraction;

describe('slack render limits', () => {
  it('a select of 100 long choices becomes one static_select with labels cut to 75 characters', () => {
    const choices = Array.from({ length: 100 }, (_, i) => `${i}-${'c'.repeat(190)}`);
    const { blocks } = renderQuestion(interaction({ answer_format: 'select', choices }));
    const menu = (blocks[2]?.['elements'] as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    expect(menu['type']).toBe('static_select');
    const options = menu['options'] as Array<{ text: { text: string }; value: string }>;
    expect(options).toHaveLength(100);
    expect(Math.max(...options.map((o) => [...o.text.text].length))).toBe(75);
  });

  it("an enum past static_select's 100 options fails at render time, naming the limit", () => {
    const schema = {
      type: 'object',
      properties: { pick: { type: 'string', enum: Array.from({ length: 101 }, (_, i) => `v${i}`) } },
    };
    expect(() => buildFormView(interaction({ schema }), { interactionId: 'x', channel: null, ts: null })).toThrow(
      RenderLimitError,
    );
    expect(() => buildFormView(interaction({ schema }), { interactionId: 'x', channel: null, ts: null })).toThrow(
      /SELECT_OPTIONS_MAX/,
    );
  });

  it('a form of more fields than a modal holds fails at render time, naming VIEW_BLOCKS_MAX', () => {
    const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(() =>
      buildFormView(interaction({ schema: { type: 'object', properties } }), {
        interactionId: 'x',
        channel: null,
        ts: null,
      }),
    ).toThrow(/VIEW_BLOCKS_MAX/);
  });

  it('private_metadata past 3000 characters fails at render time, naming the limit', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(() =>
      buildFormView(interaction({ schema }), { interactionId: 'x'.repeat(3000), channel: null, ts: null }),
    ).toThrow(/PRIVATE_METADATA_MAX/);
  });

  it("a required field without the sender's words is left to Slack; with them it is checked on submit in those words", () => {
    const schema = {
      type: 'object',
      required: ['a', 'b'],
      properties: {
        a: { type: 'string' },
        b: { type: 'string', errorMessages: { required: 'Enter an address first' } },
      },
    };
    const view = buildFormView(interaction({ schema }), { interactionId: 'x', channel: null, ts: null });
    expect((view['blocks'] as Array<Record<string, unknown>>).slice(1).map((b) => b['optional'])).toEqual([
      false,
      true,
    ]);
    expect(checkSubmission(schema, { 'f:a': { value: { type: 'plain_text_input', value: 'x' } } })).toEqual({
      ok: false,
      errors: { 'f:b': 'Enter an address first' },
    });
  });

  it('files become media_* params: the first described in full, the count and every id', () => {
    expect(
      filesParams([
        { id: 'F1', name: 'a.pdf', mimetype: 'application/pdf', size: 10 },
        { id: 'F2', name: 'b.mp4', mimetype: 'video/mp4' },
      ]),
    ).toEqual({
      media_kind: 'document',
      media_count: '2',
      media_file_id: 'F1',
      media_file_name: 'a.pdf',
      media_mime_type: 'application/pdf',
      media_file_size: '10',
      media_file_ids: 'F1,F2',
    });
  });
});

describe('slack pacing', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack({ token: 'xoxb-unit' });
  });
  afterAll(async () => fake.close());

  const channel = (waits: number[]): SlackChannel =>
    new SlackChannel({
      botToken: 'xoxb-unit',
      signingSecret: 's',
      apiUrl: fake.apiUrl,
      pacing: { sleep: async (ms) => void waits.push(ms) },
    });
  const confirm = (recipient: string) => interaction({ answer_format: 'confirm', recipient });

  it('a 429 is honoured: askgate waits its Retry-After, then the message goes', async () => {
    const waits: number[] = [];
    fake.tooManyRequests('chat.postMessage', 2);
    const refs = await channel(waits).deliver(confirm('C0PACE1'));
    expect(refs['ts']).toMatch(/^\d+\.\d+$/);
    expect(waits).toContain(2000);
    expect(fake.callsTo('chat.postMessage').filter((c) => c.args['channel'] === 'C0PACE1')).toHaveLength(2);
  });

  it('a Retry-After past the longest wait fails the delivery with retryAfter, without waiting', async () => {
    const waits: number[] = [];
    fake.tooManyRequests('chat.postMessage', 120);
    await expect(channel(waits).deliver(confirm('C0PACE2'))).rejects.toMatchObject({
      name: 'ChannelError',
      kind: 'refused',
      retryAfter: 120,
    });
    expect(waits).toEqual([]);
  });

  it('about one message per second per channel: a fourth message into one channel waits, another channel does not', async () => {
    const waits: number[] = [];
    const ch = channel(waits);
    for (let i = 0; i < 4; i++) await ch.deliver(confirm('C0PACE3'));
    expect(waits.filter((ms) => ms > 0)).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(500);
    await ch.deliver(confirm('C0PACE4'));
    expect(waits).toHaveLength(1);
  });

  it("a refusal names the method and Slack's error, and never the token", async () => {
    fake.forgetChannel('C0GONE');
    const err = await channel([])
      .deliver(confirm('C0GONE'))
      .catch((e: unknown) => e as Error);
    expect(err.message).toBe('Slack refused chat.postMessage: channel_not_found');
    expect(err.message).not.toContain('xoxb');
  });
});
