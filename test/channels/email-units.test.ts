import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addressRefusal } from '../../channels/email/address.js';
import { email } from '../../channels/email/channel.js';
import { SharedPacer } from '../../channels/shared-pacing.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { createLogger } from '../../src/observability/logger.js';
import { MemoryChannelState } from '../../src/store/memory-channel-state.js';
import { startFakeSmtp } from '../fakes/smtp-server.js';
import { emailConfig } from '../../channels/email/config.js';
import { newTextOf } from '../../channels/email/quoting.js';
import { verify } from '../../channels/email/verify.js';
import { ConfigError } from '../../src/config-env.js';

/** The email channel's pure parts: the quote cutter on each client's form, addresses, its variables, its verify. */

describe('the new text of a reply', () => {
  it('cuts Outlook’s From:/Sent: block even without the rule above it, and keeps a sentence that starts "From:"', () => {
    expect(
      newTextOf(
        'Approved.\n\nFrom: Askgate <askgate@example.com>\nSent: Thursday, December 3, 2026 4:01 PM\nTo: Ann\nSubject: Deploy?\n\nDeploy?',
      ),
    ).toBe('Approved.');
    expect(newTextOf('From: the logs, it was the disk.\nNothing else.')).toBe(
      'From: the logs, it was the disk.\nNothing else.',
    );
  });

  it('cuts the attribution lines of Gmail (one line or wrapped), Apple Mail, German Gmail and "Original Message"', () => {
    expect(newTextOf('Yes\n\nOn Thu, Dec 3, 2026 at 4:01 PM Askgate <askgate@example.com> wrote:\n> Q?')).toBe('Yes');
    expect(newTextOf('Yes\n\nOn Thu, Dec 3, 2026 at 4:01 PM Askgate <askgate@example.com>\nwrote:\n\n> Q?')).toBe(
      'Yes',
    );
    expect(newTextOf('No\n\n> On 3 Dec 2026, at 16:01, Askgate <askgate@example.com> wrote:\n>\n> Q?')).toBe('No');
    expect(newTextOf('Ja\n\nAm Do., 3. Dez. 2026 um 16:01 Uhr schrieb Askgate <askgate@example.com>:\n> Q?')).toBe(
      'Ja',
    );
    expect(newTextOf('ok\n\n-----Original Message-----\nFrom: Askgate\nQ?')).toBe('ok');
  });

  it('drops `>` lines wherever they are, and stops at a "-- " signature or "Sent from my iPhone"', () => {
    expect(newTextOf('> Q?\nYes.\n> more quote\nThanks')).toBe('Yes.\nThanks');
    expect(newTextOf('Use staging first.\n-- \nAnn Lee\nPlatform team')).toBe('Use staging first.');
    expect(newTextOf('2\n\nSent from my iPhone')).toBe('2');
  });
});

describe('addresses', () => {
  it('takes ordinary addresses and names what is wrong with the others', () => {
    expect(addressRefusal('ann.lee+ops@mail.example.co.uk')).toBeNull();
    expect(addressRefusal(null)).toBe('is required: the email address to send to; write it as ann@example.com.');
    expect(addressRefusal('ann@example')).toBe(
      'is not an email address (its domain is not one); write it as ann@example.com.',
    );
    expect(addressRefusal('Ann <ann@example.com>')).toBe(
      'is not an email address (its part before @ is not one); write it as ann@example.com.',
    );
  });
});

describe('the variables', () => {
  it('is off without them, and reads them with the defaults', () => {
    expect(emailConfig({})).toBeNull();
    expect(
      emailConfig({ SMTP_URL: 'smtps://u:p@smtp.example.com:465', EMAIL_FROM: 'Askgate <askgate@example.com>' }),
    ).toEqual({
      smtpUrl: 'smtps://u:p@smtp.example.com:465',
      from: 'Askgate <askgate@example.com>',
      fromAddress: 'askgate@example.com',
      inboundSecret: null,
      perSecond: 5,
    });
  });

  it('refuses a bad SMTP_URL, EMAIL_FROM or rate naming the variable, never the URL’s password', () => {
    const bad = (env: Record<string, string>): string => {
      try {
        emailConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    const from = { EMAIL_FROM: 'askgate@example.com' };
    expect(bad({ ...from, SMTP_URL: 'https://u:hunter2@smtp.example.com' })).toBe(
      'SMTP_URL: must start with smtp:// or smtps://, not https://.',
    );
    expect(bad({ ...from, SMTP_URL: 'smtp.example.com:587' })).toMatch(/^SMTP_URL: /);
    expect(bad({ ...from, SMTP_URL: 'not a url' })).toMatch(/^SMTP_URL: is not a URL/);
    expect(bad({ SMTP_URL: 'smtp://h' })).toMatch(/^EMAIL_FROM: is required with SMTP_URL/);
    expect(bad({ SMTP_URL: 'smtp://h', EMAIL_FROM: 'askgate' })).toMatch(/^EMAIL_FROM: is not an email address/);
    expect(bad({ SMTP_URL: 'smtp://h', ...from, EMAIL_SEND_PER_SECOND: '0' })).toMatch(/^EMAIL_SEND_PER_SECOND: /);
  });

  it('a bad SMTP_URL stops the process with one line naming the variable', async () => {
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'askgate-email-')),
        SMTP_URL: 'http://user:hunter2@smtp.example.com',
        EMAIL_FROM: 'askgate@example.com',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(1);
    expect(out).toMatch(/^askgate: bad configuration: SMTP_URL: must start with smtp:\/\/ or smtps:\/\//m);
    expect(out).not.toContain('hunter2');
  });
});

describe('verify', () => {
  const secret = 'inbound-secret';
  const body = Buffer.from('Subject: x\r\n\r\nhi');
  // HMAC-SHA256 of the body above under "inbound-secret", computed with `openssl dgst -sha256 -hmac inbound-secret`.
  const signed = 'sha256=a32d7a9a80c05a94176fcf83b51069d7c2c14a5eae3af6af9a088fc836f10783';
  it('accepts the relay’s signature (any hex case) and refuses a missing, malformed or wrong one, or an unset secret', () => {
    expect(verify({ secret, rawBody: body, headers: { 'x-askgate-signature': signed }, now: 0 })).toEqual({ ok: true });
    expect(
      verify({
        secret,
        rawBody: body,
        headers: { 'x-askgate-signature': signed.toUpperCase().replace('SHA256', 'sha256') },
        now: 0,
      }),
    ).toEqual({ ok: true });
    expect(verify({ secret, rawBody: body, headers: {}, now: 0 })).toEqual({
      ok: false,
      reason: 'the X-Askgate-Signature header is missing',
    });
    expect(verify({ secret, rawBody: body, headers: { 'x-askgate-signature': 'md5=00' }, now: 0 })).toMatchObject({
      ok: false,
    });
    expect(verify({ secret: '', rawBody: body, headers: { 'x-askgate-signature': signed }, now: 0 })).toMatchObject({
      ok: false,
    });
    expect(
      verify({ secret: 'other', rawBody: body, headers: { 'x-askgate-signature': signed }, now: 0 }),
    ).toMatchObject({
      ok: false,
    });
  });
});

describe('pacing', () => {
  it('every send takes its turn in the shared budget of the SMTP account (EMAIL_SEND_PER_SECOND)', async () => {
    const smtp = await startFakeSmtp();
    const state = new MemoryChannelState();
    const env = { SMTP_URL: smtp.url, EMAIL_FROM: 'askgate@example.com', EMAIL_SEND_PER_SECOND: '2' };
    const settings = { env, publicBaseUrl: null, signingKey: () => 'k' };
    const plugin = email.fromConfig({ settings, logger: createLogger('silent'), doors: {}, state });
    if (plugin === null) throw new Error('the channel was not built');
    // The same account as every process sending through this server as this sender: 2 slots a second, 500 ms apart.
    const budget = new SharedPacer(state.pacing, {
      platform: 'email',
      account: `${smtp.url} askgate@example.com`,
      perSecond: 2,
      perChatIntervalMs: 0,
    });
    try {
      const first = await budget.reserveSlot(null);
      const delivery = { to: 'ann@example.com', message_id: '<q.1@example.com>', subject: 'Q' };
      for (let i = 0; i < 3; i++) await plugin.remind({} as StoredInteraction, delivery, `nudge ${i}`);
      expect(smtp.to('ann@example.com').map((m) => m.text.split('\n')[0])).toEqual(['nudge 0', 'nudge 1', 'nudge 2']);
      // Three sends took the three slots after the first: the next free one is four slots (2 s) after it.
      expect((await budget.reserveSlot(null)).slotAt - first.slotAt).toBeGreaterThanOrEqual(2000);
    } finally {
      await plugin.stop?.();
      await smtp.close();
    }
  });
});
