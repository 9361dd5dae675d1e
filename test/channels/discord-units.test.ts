import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { discordConfig } from '../../channels/discord/config.js';
import { RenderLimitError } from '../../channels/discord/limits.js';
import { formRefusal, readFormModal } from '../../channels/discord/modal.js';
import { renderOutcome, renderQuestion } from '../../channels/discord/render.js';
import { verify } from '../../channels/discord/verify.js';
import {
  MalformedInteraction,
  decodeControlId,
  dedupeKeyOf,
  encodeControlId,
  parseInteraction,
} from '../../channels/discord/webhook.js';
import { channelsFromConfig } from '../../channels/registration/from-config.js';
import { MalformedWebhook } from '../../channels/http.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { channelSettings } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';
import { MemoryChannelState } from '../../src/store/memory-channel-state.js';
import type { StoredInteraction } from '../../src/core/types.js';

const NOW = 1_764_547_200;
const keys = generateKeyPairSync('ed25519');
const PUBLIC_KEY = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');

function signed(body: string, timestamp = NOW, key = keys.privateKey) {
  return {
    'x-signature-ed25519': sign(null, Buffer.from(`${timestamp}${body}`), key).toString('hex'),
    'x-signature-timestamp': String(timestamp),
  };
}

/** The pipeline's clock is in milliseconds; Discord's timestamps are in seconds. */
const ms = (seconds: number): number => seconds * 1000;

describe('verify (the public key is the secret)', () => {
  const body = '{"type":1,"id":"1","token":"t"}';
  const check = (headers: Record<string, string>, rawBody = body, now = NOW) =>
    verify({ secret: PUBLIC_KEY, rawBody: Buffer.from(rawBody), headers, now: ms(now) });

  it('accepts an Ed25519 signature over the timestamp followed by the raw body', () => {
    expect(check(signed(body))).toEqual({ ok: true });
  });

  it('refuses a changed body, another key, missing headers and a stale timestamp', () => {
    expect(check(signed(body), body.replace('1', '2'))).toMatchObject({ ok: false, reason: /does not match/ });
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(check(signed(body, NOW, other))).toMatchObject({ ok: false });
    expect(check({ 'x-signature-timestamp': String(NOW) })).toMatchObject({ reason: /X-Signature-Ed25519/ });
    expect(check({ 'x-signature-ed25519': 'ab'.repeat(64) })).toMatchObject({ reason: /X-Signature-Timestamp/ });
    expect(check(signed(body, NOW - 301))).toMatchObject({ ok: false, reason: /300 s/ });
    expect(check(signed(body), body, NOW + 299)).toEqual({ ok: true });
  });

  it('refuses everything when the configured key is not 32 bytes of hex', () => {
    expect(verify({ secret: 'nothex', rawBody: Buffer.from(body), headers: signed(body), now: ms(NOW) })).toMatchObject(
      { ok: false, reason: /public key/ },
    );
  });
});

describe('parseInteraction', () => {
  const parse = (v: unknown) => parseInteraction(Buffer.from(JSON.stringify(v)));

  it('reads a PING, a click in a server, and a modal submission in a DM (action rows or label wrappers)', () => {
    expect(parse({ type: 1, id: '1', token: 't' })).toEqual({ kind: 'ping' });
    const click = parse({
      type: 3,
      id: '10',
      token: 'tok',
      application_id: '99',
      guild_id: '7',
      channel_id: '55',
      member: { user: { id: '42', username: 'ada', global_name: 'Ada' } },
      message: { id: '77', channel_id: '55', content: 'Q?' },
      data: { custom_id: 'ag:s:abc:2', component_type: 3, values: ['51'] },
    });
    expect(click).toMatchObject({
      kind: 'component',
      id: '10',
      customId: 'ag:s:abc:2',
      values: ['51'],
      user: { id: '42', username: 'ada', globalName: 'Ada' },
      channelId: '55',
      guildId: '7',
      applicationId: '99',
      message: { id: '77', channelId: '55', content: 'Q?' },
    });
    const modal = parse({
      type: 5,
      id: '11',
      token: 'tok',
      channel_id: '56',
      user: { id: '43', username: 'grace' },
      data: {
        custom_id: 'ag:m:abc',
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'f0', value: 'one' }] },
          { type: 18, component: { type: 4, custom_id: 'f1', value: 'two' } },
        ],
      },
    });
    expect(modal).toMatchObject({ kind: 'modal', user: { id: '43' }, guildId: null, message: null });
    expect(modal.kind === 'modal' && Object.fromEntries(modal.fields)).toEqual({ f0: 'one', f1: 'two' });
  });

  it('ignores commands and refuses what is not an interaction', () => {
    expect(parse({ type: 2, id: '1', token: 't', data: { name: 'x' } })).toEqual({ kind: 'ignored', type: 2 });
    expect(() => parseInteraction(Buffer.from('not json'))).toThrow(MalformedInteraction);
    expect(() => parseInteraction(Buffer.from('not json'))).toThrow(MalformedWebhook);
    expect(() => parse({ id: '1' })).toThrow(/"type" is missing/);
    expect(() => parse({ type: 3, id: '1', token: 't', data: {} })).toThrow(/"custom_id" is missing/);
  });

  it('control ids round-trip, and foreign ones are not askgate’s', () => {
    for (const control of [
      { action: 'yes', interactionId: 'Ab_-9' },
      { action: 'menu', interactionId: 'x', n: 3 },
      { action: 'form_modal', interactionId: 'y' },
    ] as const)
      expect(decodeControlId(encodeControlId(control))).toEqual(control);
    expect(decodeControlId('other-feature:button')).toBeNull();
    expect(decodeControlId('ag:c:abc')).toBeNull();
    expect(decodeControlId('ag:y:abc:1')).toBeNull();
  });

  it('de-duplicates clicks and submissions by Discord’s interaction id; a PING or a command is answered every time', () => {
    const click = { type: 3, id: '10', token: 't', data: { custom_id: 'ag:y:abc' } };
    expect(dedupeKeyOf(parse(click))).toBe('discord:interaction:10');
    expect(dedupeKeyOf(parse({ ...click, type: 5, id: '11' }))).toBe('discord:interaction:11');
    expect(dedupeKeyOf(parse({ type: 1, id: '1', token: 't' }))).toBeNull();
    expect(dedupeKeyOf(parse({ type: 2, id: '2', token: 't', data: { name: 'x' } }))).toBeNull();
  });
});

const question = (over: Partial<StoredInteraction>): StoredInteraction =>
  ({
    id: 'Q1abc',
    question: 'Q?',
    answer_format: 'confirm',
    choices: null,
    schema: null,
    ...over,
  }) as StoredInteraction;

describe('render', () => {
  it("cuts the longest question an ask may carry to Discord's 2000 characters, keeping the hint", () => {
    const body = renderQuestion(question({ question: 'Q'.repeat(4096) }));
    expect([...body.content].length).toBe(2000);
    expect(body.content.endsWith('\n\nChoose Yes or No.')).toBe(true);
    expect(renderOutcome(question({ status: 'expired' })).components).toEqual([]);
  });

  it('names the limit when choices would need more than five select menus', () => {
    const choices = Array.from({ length: 126 }, (_, i) => `c${i}`);
    expect(() => renderQuestion(question({ answer_format: 'select', choices }))).toThrow(RenderLimitError);
    expect(() => renderQuestion(question({ answer_format: 'select', choices }))).toThrow(/action rows per message/);
  });
});

describe('form modal', () => {
  it('refuses what a modal cannot carry, naming the property', () => {
    const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });
    expect(formRefusal(schema({ a: { type: 'string' } }))).toBeNull();
    expect(
      formRefusal(schema({ a: { type: 'boolean' }, b: { type: 'string', visibleWhen: { field: 'a', equals: true } } })),
    ).toMatchObject({ property: 'b', reason: /visibleWhen/ });
    const long = Array.from({ length: 20 }, (_, i) => `choice-number-${i}`);
    expect(formRefusal(schema({ pick: { type: 'string', enum: long } }))).toMatchObject({
      property: 'pick',
      reason: /100-character/,
    });
  });

  it('reads typed words as the values they mean, and names the first field that does not fit', () => {
    const schema = {
      type: 'object',
      required: ['when'],
      properties: { when: { type: 'string', format: 'date' }, ok: { type: 'boolean' }, n: { type: 'number' } },
    };
    expect(
      readFormModal(
        schema,
        new Map([
          ['f0', '2026-12-01'],
          ['f1', 'No'],
          ['f2', '2.5'],
        ]),
      ),
    ).toEqual({
      ok: true,
      answer: { when: '2026-12-01', ok: false, n: 2.5 },
    });
    expect(readFormModal(schema, new Map([['f1', 'yes']]))).toEqual({
      ok: false,
      label: 'when',
      name: 'when',
      error: 'This field is required.',
    });
    expect(
      readFormModal(
        schema,
        new Map([
          ['f0', '2026-12-01'],
          ['f1', 'maybe'],
        ]),
      ),
    ).toMatchObject({
      ok: false,
      label: 'ok',
      name: 'ok',
    });
  });
});

describe('DISCORD_* configuration', () => {
  const env = {
    DISCORD_BOT_TOKEN: 'token',
    DISCORD_PUBLIC_KEY: PUBLIC_KEY.toUpperCase(),
    DISCORD_APPLICATION_ID: '1300000000000000001',
  };

  it('is off without its variables, and on with the three required ones (API URL defaulted)', () => {
    expect(discordConfig({})).toBeNull();
    expect(discordConfig(loadConfig(env).env)).toEqual({
      botToken: 'token',
      publicKey: PUBLIC_KEY,
      applicationId: '1300000000000000001',
      apiUrl: 'https://discord.com/api',
    });
  });

  it('names the missing variable, and refuses a public key that is not 64 hex characters', () => {
    expect(() => discordConfig({ DISCORD_BOT_TOKEN: 'token' })).toThrow(/^DISCORD_PUBLIC_KEY: is required/);
    expect(() => discordConfig({ ...env, DISCORD_PUBLIC_KEY: 'abc' })).toThrow(
      /^DISCORD_PUBLIC_KEY: is not a public key/,
    );
  });

  it('stops the gateway from starting when half set, and builds the channel when set', async () => {
    const logger = createLogger('silent');
    expect(() =>
      channelsFromConfig(channelSettings(loadConfig({ DISCORD_BOT_TOKEN: 'token' })), logger, new MemoryChannelState()),
    ).toThrow(ConfigError);
    expect(() =>
      channelsFromConfig(
        channelSettings(loadConfig({ ...env, DISCORD_PUBLIC_KEY: 'abc' })),
        logger,
        new MemoryChannelState(),
      ),
    ).toThrow(/^DISCORD_PUBLIC_KEY: is not a public key/);
    const plugins = channelsFromConfig(channelSettings(loadConfig(env)), logger, new MemoryChannelState());
    expect(plugins.map((p) => p.name).sort()).toEqual(['discord', 'web']);
    await Promise.all(plugins.map((p) => p.stop?.()));
  });
});
