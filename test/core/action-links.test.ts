import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ActionLinkRequest, ActionLinks } from '../../src/core/action-links.js';
import { loadConfig } from '../../src/config.js';
import { loggablePath } from '../../src/observability/logger.js';
import { makeInteraction } from '../store/fixtures.js';

/**
 * The signed action links' token (docs/action-links.md): its written-out form, its signature over exactly that form,
 * and every way a token is refused; the refusals of a link that could not answer its question, where it is made.
 */

const SECRET = 'an-action-link-secret-of-at-least-32-chars';
const NOW = Date.parse('2026-03-01T12:00:00Z');
const question = (over: Parameters<typeof makeInteraction>[0] = {}) =>
  makeInteraction({
    id: 'int_7f3c',
    answer_format: 'confirm',
    channel: 'email',
    recipient: 'ann@example.com',
    deadline_at: '2026-03-01T13:00:00.000Z',
    ...over,
  });
const links = (now = NOW) => new ActionLinks(SECRET, 'https://askgate.example.com', () => now);
const request: ActionLinkRequest = { channel: 'email', recipient: 'ann@example.com', answer: true };

/** The documented form, computed here apart from the product: `v1.<claim>.<HMAC-SHA256("askgate-action-link.v1." + claim)>`. */
function documentedToken(claimJson: string, secret = SECRET): string {
  const body = Buffer.from(claimJson).toString('base64url');
  const sig = createHmac('sha256', secret).update(`askgate-action-link.v1.${body}`).digest('base64url');
  return `v1.${body}.${sig}`;
}

describe('action link tokens', () => {
  it('are v1.<claim>.<signature>, the claim naming question, channel, recipient, answer and expiry (the deadline)', () => {
    const url = links().link(question(), request);
    const expected = documentedToken('{"i":"int_7f3c","c":"email","r":"ann@example.com","a":true,"e":1772370000}');
    expect(url).toBe(`https://askgate.example.com/a/${expected}`);
    expect(links().read(expected)).toEqual({
      ok: true,
      claim: {
        interactionId: 'int_7f3c',
        channel: 'email',
        recipient: 'ann@example.com',
        answer: true,
        expiresAt: Date.parse('2026-03-01T13:00:00Z'),
      },
    });
  });

  it('expire when asked, but never after the question’s deadline', () => {
    const early = links().token(question(), { ...request, expiresAt: new Date('2026-03-01T12:30:00Z') });
    expect(early).toBe(documentedToken('{"i":"int_7f3c","c":"email","r":"ann@example.com","a":true,"e":1772368200}'));
    const late = links().token(question(), { ...request, expiresAt: new Date('2026-03-02T00:00:00Z') });
    expect(late).toBe(documentedToken('{"i":"int_7f3c","c":"email","r":"ann@example.com","a":true,"e":1772370000}'));
  });

  it('carry a select question’s choice as its text', () => {
    const token = links().token(question({ answer_format: 'select', choices: ['red', 'blue'] }), {
      ...request,
      answer: 'blue',
    });
    expect(token).toBe(documentedToken('{"i":"int_7f3c","c":"email","r":"ann@example.com","a":"blue","e":1772370000}'));
  });

  it('are refused once past their expiry, the claim still read (the page shows the outcome)', () => {
    const token = links().token(question(), request);
    expect(links(Date.parse('2026-03-01T12:59:59Z')).read(token).ok).toBe(true);
    expect(links(Date.parse('2026-03-01T13:00:00Z')).read(token)).toMatchObject({
      ok: false,
      why: 'expired',
      claim: { interactionId: 'int_7f3c', answer: true },
    });
  });

  it('are refused as forged when changed anywhere, or signed with another secret', () => {
    const token = links().token(question(), request);
    const [v, body, sig] = token.split('.') as [string, string, string];
    // The claim swapped for "No", the signature kept.
    const swapped = Buffer.from('{"i":"int_7f3c","c":"email","r":"ann@example.com","a":false,"e":1772370000}').toString(
      'base64url',
    );
    expect(links().read(`${v}.${swapped}.${sig}`)).toEqual({ ok: false, why: 'forged' });
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    expect(links().read(`${v}.${body}.${flipped}`)).toEqual({ ok: false, why: 'forged' });
    const otherSecret = documentedToken(
      '{"i":"int_7f3c","c":"email","r":"ann@example.com","a":true,"e":1772370000}',
      'another-secret-another-secret-another',
    );
    expect(links().read(otherSecret)).toEqual({ ok: false, why: 'forged' });
  });

  it('are refused as malformed when not of the form at all', () => {
    const token = links().token(question(), request);
    for (const bad of ['', 'v1', 'v2.abc.def', token.slice(0, -1), `${token}.x`, `v1.a+b.${'A'.repeat(43)}`])
      expect(links().read(bad)).toEqual({ ok: false, why: 'malformed' });
  });

  it('are never made for a question no link can answer, naming the field', () => {
    const make =
      (over: Parameters<typeof makeInteraction>[0], req: Partial<ActionLinkRequest> = {}) =>
      () =>
        links().token(question(over), { ...request, ...req });
    expect(make({ answer_format: 'text' })).toThrow(
      'cannot make an action link: answer_format is text; an action link carries one choice of a confirm or select question.',
    );
    expect(make({ status: 'answered' })).toThrow('cannot make an action link: status is answered');
    expect(make({ verifier_binding: { name: 'stripe' } })).toThrow('cannot make an action link: verifier is set');
    expect(make({}, { channel: 'sms' })).toThrow(
      'cannot make an action link: channel "sms" is not one of the question',
    );
    expect(make({ answer_format: 'select', choices: ['red'] }, { answer: 'green' })).toThrow(
      'cannot make an action link: answer does not answer the question',
    );
    expect(make({}, { recipient: '' })).toThrow('cannot make an action link: recipient is empty');
    // A surface added to the question later counts too.
    expect(
      links().token(question({ extra_surfaces: [{ channel: 'sms', recipient: '+15550100', delivery: null }] }), {
        ...request,
        channel: 'sms',
      }),
    ).toMatch(/^v1\./);
  });

  it('are masked in logged paths', () => {
    expect(loggablePath(`/a/${links().token(question(), request)}`)).toBe('/a/[token]');
  });
});

describe('ASKGATE_LINK_SECRET', () => {
  it('is refused shorter than 32 characters, or without a public origin for the links', () => {
    expect(() =>
      loadConfig({ ASKGATE_LINK_SECRET: 'short', INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' }),
    ).toThrow('ASKGATE_LINK_SECRET: is 5 characters; use at least 32 random ones (e.g. `openssl rand -hex 32`).');
    // No public origin: PORT=0 (any free port) leaves the loopback gateway without one of its own.
    expect(() => loadConfig({ ASKGATE_LINK_SECRET: SECRET, PORT: '0' })).toThrow(
      /^INTERACTIONS_PUBLIC_BASE_URL: is unset, but/,
    );
    // A loopback gateway on a fixed port is its own public origin, so its links need nothing more.
    expect(loadConfig({ ASKGATE_LINK_SECRET: SECRET, PORT: '8080' }).linkSecret).toBe(SECRET);
    expect(
      loadConfig({ ASKGATE_LINK_SECRET: SECRET, INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' }).linkSecret,
    ).toBe(SECRET);
  });
});
