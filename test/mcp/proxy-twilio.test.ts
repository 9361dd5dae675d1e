import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPhone, startTwilioWorld, type TwilioWorld } from '../channels/twilio-harness.js';
import { eventually } from './harness.js';
import { startProxySession } from './proxy-harness.js';

/**
 * `askgate mcp-proxy` with the person on SMS (Twilio): a URL-mode elicitation arrives as two texts, the URL question
 * and the Decline question; the person cannot tap, so a texted "no" (any case, spaces around it) declines, through
 * the fake's signed inbound webhook, as the Decline button does on the other surfaces.
 */

let w: TwilioWorld;
beforeAll(async () => {
  w = await startTwilioWorld();
});
afterAll(async () => w?.close());

const URL_ELICITATION = {
  mode: 'url',
  message: 'Connect your calendar',
  url: 'https://calendar.example/connect?state=sms',
  elicitationId: 'el-sms-1',
};

it('declines when the person texts "no"', async () => {
  const phone = freshPhone();
  const session = await startProxySession(w.gw, ['--channel', 'twilio', '--recipient', phone]);
  try {
    const result = session.elicit(URL_ELICITATION);
    await eventually(() => w.fake.sent.filter((m) => m.to === phone).length >= 2, 'the URL and the Decline texts');
    const [urlText, declineText] = w.fake.sent.filter((m) => m.to === phone);
    expect(urlText?.body).toContain('https://calendar.example/connect?state=sms');
    expect(declineText?.body).toContain('Decline');
    const reply = await w.text(phone, '  No ');
    expect(reply.status).toBe(200);
    // Not the hint a reply that fits no choice gets ("Please answer with one of: 1. Decline").
    expect(reply.body).not.toContain('Please answer');
    expect((await result).value).toEqual({ action: 'decline' });
  } finally {
    await session.close();
  }
});
