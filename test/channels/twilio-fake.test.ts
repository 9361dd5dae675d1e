import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type * as TwilioHttp from 'twilio/lib/http/response.js';
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

/** The twilio package's own client, its requests sent to the fake instead of api.twilio.com. */
class ToFake extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super();
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>): Promise<TwilioHttp.default<TData>> {
    return super.request({ ...opts, uri: opts.uri.replace('https://api.twilio.com', this.base) });
  }
}

/** A receiver of status callbacks: each one's params, once its X-Twilio-Signature checked out (twilio.validateRequest). */
async function callbackReceiver(): Promise<{
  url: string;
  got: Array<Record<string, string>>;
  close(): Promise<void>;
}> {
  const got: Array<Record<string, string>> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const signed = twilio.validateRequest(
        AUTH_TOKEN,
        String(req.headers['x-twilio-signature']),
        `${PUBLIC}/status`,
        params,
      );
      if (signed) got.push(params);
      res.writeHead(signed ? 204 : 403).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PUBLIC = 'https://askgate.example.com';

describe('the fake Twilio, through the twilio package', () => {
  const client = (): twilio.Twilio => twilio(ACCOUNT_SID, AUTH_TOKEN, { httpClient: new ToFake(fake.apiUrl) });

  it('answers a send over the account limit with HTTP 429, error 20429 (twilio.com/docs/api/errors/20429)', async () => {
    fake.tooManyRequests(1);
    const err = await client()
      .messages.create({ to: '+15551230002', from: OWNED_SMS_FROM, body: 'hi' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(twilio.RestException);
    expect(err).toMatchObject({ status: 429, code: 20429 });
    expect(fake.refused429).toBe(1);
    // Only the next one: the one after goes through.
    const sent = await client().messages.create({ to: '+15551230002', from: OWNED_SMS_FROM, body: 'hi' });
    expect(sent.status).toBe('queued');
  });

  it('reports an undelivered message as sent, then undelivered with its ErrorCode; a failed one as failed alone', async () => {
    const receiver = await callbackReceiver();
    try {
      fake.routeCallbacks(PUBLIC, receiver.url);
      fake.failDeliveries('+15551230003', 'undelivered', '30003');
      fake.failDeliveries('+15551230004', 'failed', '30008');
      const statusCallback = `${PUBLIC}/status`;
      const a = await client().messages.create({ to: '+15551230003', from: OWNED_SMS_FROM, body: 'a', statusCallback });
      const b = await client().messages.create({ to: '+15551230004', from: OWNED_SMS_FROM, body: 'b', statusCallback });
      const c = await client().messages.create({ to: '+15551230005', from: OWNED_SMS_FROM, body: 'c', statusCallback });
      for (let i = 0; i < 250 && receiver.got.length < 5; i++) await new Promise((r) => setTimeout(r, 20));
      const of = (sid: string) =>
        receiver.got.filter((p) => p['MessageSid'] === sid).map((p) => [p['MessageStatus'], p['ErrorCode'] ?? null]);
      expect(of(a.sid)).toEqual([
        ['sent', null],
        ['undelivered', '30003'],
      ]);
      expect(of(b.sid)).toEqual([['failed', '30008']]);
      expect(of(c.sid)).toEqual([
        ['sent', null],
        ['delivered', null],
      ]);
    } finally {
      await receiver.close();
    }
  });
});
