import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  OWNED_SMS_FROM,
  OWNED_WHATSAPP_FROM,
  startFakeTwilio,
  type FakeTwilio,
} from '../fakes/twilio-server.js';

/**
 * The fake Twilio Messages API refuses what Twilio refuses (twilio.com/docs/api/errors: 21602, 21211, 21212, 21606,
 * 21910), so askgate's real code meets those refusals in the channel tests.
 */

let fake: FakeTwilio;
beforeAll(async () => {
  fake = await startFakeTwilio();
});
afterAll(async () => fake?.close());

async function create(params: Record<string, string>): Promise<{ status: number; code: number | undefined }> {
  const res = await fetch(`${fake.apiUrl}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
    },
    body: new URLSearchParams(params).toString(),
  });
  const body = (await res.json()) as { code?: number };
  return { status: res.status, code: res.status === 201 ? undefined : body.code };
}

describe('the fake Twilio refuses what Twilio refuses', () => {
  it('an empty Body is 21602', async () => {
    expect(await create({ To: '+15551230001', From: OWNED_SMS_FROM, Body: '' })).toEqual({ status: 400, code: 21602 });
  });

  it('a To or From that is not E.164 is 21211 / 21212', async () => {
    expect((await create({ To: '5551230001', From: OWNED_SMS_FROM, Body: 'hi' })).code).toBe(21211);
    expect((await create({ To: '+15551230001', From: '15005550006', Body: 'hi' })).code).toBe(21212);
  });

  it('a From the account does not own is 21606', async () => {
    expect((await create({ To: '+15551230001', From: '+15550009999', Body: 'hi' })).code).toBe(21606);
  });

  it('a WhatsApp sender to an SMS number, or the reverse, is 21910', async () => {
    expect((await create({ To: '+15551230001', From: OWNED_WHATSAPP_FROM, Body: 'hi' })).code).toBe(21910);
    expect((await create({ To: 'whatsapp:+15551230001', From: OWNED_SMS_FROM, Body: 'hi' })).code).toBe(21910);
    expect((await create({ To: 'whatsapp:+15551230001', From: OWNED_WHATSAPP_FROM, Body: 'hi' })).status).toBe(201);
  });
});
