import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { connectionFaults, type ConnectionFaults } from './connection-faults.js';

/**
 * A loopback Twilio REST API that the real twilio package talks to (`TWILIO_API_URL`): Messages.json with HTTP Basic
 * auth (account SID and auth token), Twilio's error body `{code, message, more_info, status}` — 21610 for a number
 * that replied STOP — and what Twilio refuses: an empty Body (21602), a To or From that is not E.164 (21211, 21212),
 * a From the account does not own (21606), a WhatsApp sender to an SMS number or the reverse (21910). Once told where
 * the public base really listens (`routeCallbacks`), it POSTs each message's status callbacks (`sent`, then
 * `delivered`) to its StatusCallback, signed as Twilio signs them (X-Twilio-Signature over the public URL).
 *
 * A test can make the platform fail, as Twilio documents it:
 * - `failDeliveries(to, 'undelivered' | 'failed', errorCode)`: the messages to that number end `undelivered` (after
 *   `sent`) or `failed` (without it), their last callback carrying `ErrorCode` — "If an error occurred (i.e. the
 *   message status is failed or undelivered), the ErrorCode property" is included
 *   (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status);
 * - `tooManyRequests(times)`: the next sends answer HTTP 429 with error 20429 "Too Many Requests"
 *   (https://www.twilio.com/docs/api/errors/20429), the REST API's answer to more concurrent requests than the
 *   account's limit.
 */

export const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const AUTH_TOKEN = 'twilio-auth-token-0123456789abcd';

export interface FakeSms {
  sid: string;
  to: string;
  from: string;
  body: string;
  statusCallback: string | null;
  /** The segments Twilio bills the body as (`num_segments`; 1 for WhatsApp). */
  numSegments: number;
}

/** The senders the fake's account owns unless a test names others. */
export const OWNED_SMS_FROM = '+15005550006';
export const OWNED_WHATSAPP_FROM = 'whatsapp:+14155238886';

/** A status callback the fake delivered, and how the receiver answered it. */
export interface FakeCallback {
  sid: string;
  status: string;
  httpStatus: number;
}

export interface FakeTwilio {
  /** Connection resets to play (test/fakes/connection-faults.ts). */
  readonly faults: ConnectionFaults;
  readonly apiUrl: string;
  readonly sent: FakeSms[];
  readonly callbacks: FakeCallback[];
  /** StatusCallback URLs under `publicBase` are POSTed to `reachableBase` instead (still signed for the public URL). */
  routeCallbacks(publicBase: string, reachableBase: string): void;
  sentTo(to: string): FakeSms[];
  /**
   * Messages to `to` are accepted (201) but end `status` with `errorCode` in the callback: `undelivered` after `sent`
   * (the carrier could not deliver it, e.g. 30003 unreachable handset), `failed` without it (never sent, e.g. 30008).
   */
  failDeliveries(to: string, status: 'failed' | 'undelivered', errorCode: string): void;
  /** The next `times` sends answer 429 with code 20429 (nothing is sent). */
  tooManyRequests(times?: number): void;
  /** Sends the fake answered 429. */
  readonly refused429: number;
  /** The number replied STOP: sends to it fail with 21610 until `optIn`. */
  optOut(number: string): void;
  optIn(number: string): void;
  close(): Promise<void>;
}

/** Form-encoded params signed as Twilio signs them: over the public URL the webhook is configured with. */
/**
 * How many segments Twilio bills an SMS body as (https://www.twilio.com/docs/glossary/what-sms-character-limit): in
 * GSM-7 160 characters fit one segment and 153 each of several (the extension characters ^ { } \\ [ ~ ] | € take
 * two); one character outside GSM-7 makes the whole body UCS-2, 70 UTF-16 units in one segment and 67 each of
 * several. A WhatsApp message is one message, not segmented.
 */
export function smsSegments(body: string): number {
  const basic =
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿' +
    'abcdefghijklmnopqrstuvwxyzäöñüà';
  const extension = '^{}\\[~]|€\f';
  let septets = 0;
  for (const c of body) {
    if (basic.includes(c)) septets += 1;
    else if (extension.includes(c)) septets += 2;
    else return body.length <= 70 ? 1 : Math.ceil(body.length / 67);
  }
  return septets <= 160 ? 1 : Math.ceil(septets / 153);
}

export function signTwilio(publicUrl: string, params: Record<string, string>, token = AUTH_TOKEN): string {
  return twilio.getExpectedTwilioSignature(token, publicUrl, params);
}

/** POSTs form params to `gatewayUrl + path`, signed for `publicBase + path` (null: unsigned). Resolves status and body. */
export async function postTwilio(
  gatewayUrl: string,
  publicBase: string,
  path: string,
  params: Record<string, string>,
  signed: boolean | string = true,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signed === true) headers['x-twilio-signature'] = signTwilio(`${publicBase}${path}`, params);
  else if (typeof signed === 'string') headers['x-twilio-signature'] = signed;
  const res = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.text() };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const E164 = /^\+[1-9]\d{6,14}$/;
const bare = (n: string): string => n.replace(/^whatsapp:/, '');
const isWhatsApp = (n: string): boolean => n.startsWith('whatsapp:');

export async function startFakeTwilio(options: { owned?: readonly string[] } = {}): Promise<FakeTwilio> {
  const owned = new Set(options.owned ?? [OWNED_SMS_FROM, OWNED_WHATSAPP_FROM]);
  const callbacks: FakeCallback[] = [];
  let route: { publicBase: string; reachableBase: string } | null = null;
  /** Numbers whose messages end failed or undelivered, with the ErrorCode their last callback carries. */
  const failing = new Map<string, { status: 'failed' | 'undelivered'; errorCode: string }>();
  let limited = 0;
  let refused429 = 0;
  /** Twilio's callbacks for one message, in order, each signed over the public StatusCallback URL. */
  const sendCallbacks = async (sms: FakeSms): Promise<void> => {
    const url = sms.statusCallback;
    if (url === null || route === null || !url.startsWith(route.publicBase)) return;
    const target = route.reachableBase + url.slice(route.publicBase.length);
    const failure = failing.get(sms.to);
    const statuses =
      failure === undefined
        ? ['sent', 'delivered']
        : failure.status === 'failed'
          ? ['failed']
          : ['sent', 'undelivered'];
    for (const status of statuses) {
      const errorCode: Record<string, string> =
        failure !== undefined && status === failure.status ? { ErrorCode: failure.errorCode } : {};
      const params: Record<string, string> = {
        ...errorCode,
        MessageSid: sms.sid,
        SmsSid: sms.sid,
        MessageStatus: status,
        SmsStatus: status,
        AccountSid: ACCOUNT_SID,
        From: sms.from,
        To: sms.to,
        ApiVersion: '2010-04-01',
      };
      try {
        const res = await fetch(target, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': signTwilio(url, params),
          },
          body: new URLSearchParams(params).toString(),
        });
        await res.text();
        callbacks.push({ sid: sms.sid, status, httpStatus: res.status });
      } catch {
        callbacks.push({ sid: sms.sid, status, httpStatus: 0 });
      }
    }
  };
  const sent: FakeSms[] = [];
  const optedOut = new Set<string>();
  let seq = 0;
  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: number, message: string): void =>
    reply(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const faults = connectionFaults();
  const server = createServer((req, res) => {
    if (faults.intercept(req)) return;
    void (async () => {
      const expected = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return refuse(res, 401, 20003, 'Authenticate');
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (req.method !== 'POST' || path !== `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`)
        return refuse(res, 404, 20404, 'The requested resource was not found');
      if (limited > 0) {
        limited--;
        refused429++;
        await readBody(req);
        return refuse(res, 429, 20429, 'Too Many Requests');
      }
      const p = Object.fromEntries(new URLSearchParams(await readBody(req)));
      const to = p['To'] ?? '';
      const from = p['From'] ?? '';
      const body = p['Body'] ?? '';
      if (to === '') return refuse(res, 400, 21604, "A 'To' phone number is required.");
      if (from === '') return refuse(res, 400, 21603, "A 'From' phone number is required.");
      if (!E164.test(bare(to))) return refuse(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (!E164.test(bare(from)))
        return refuse(
          res,
          400,
          21212,
          `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`,
        );
      if (!owned.has(from))
        return refuse(
          res,
          400,
          21606,
          `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
        );
      if (isWhatsApp(to) !== isWhatsApp(from))
        return refuse(res, 400, 21910, 'Invalid From and To pair. From and To should be of the same channel.');
      if (body.trim() === '' && p['MediaUrl'] === undefined)
        return refuse(res, 400, 21602, 'Message body is required.');
      if (body.length > 1600)
        return refuse(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
      if (optedOut.has(to)) return refuse(res, 400, 21610, 'Attempt to send to unsubscribed recipient');
      const sid = `SM${String(++seq).padStart(32, '0')}`;
      const sms: FakeSms = {
        sid,
        to,
        from,
        body,
        statusCallback: p['StatusCallback'] ?? null,
        numSegments: isWhatsApp(to) ? 1 : smsSegments(body),
      };
      sent.push(sms);
      // After the 201, as Twilio does: the message goes out, then its callbacks come.
      setTimeout(() => void sendCallbacks(sms), 10);
      reply(res, 201, {
        sid,
        account_sid: ACCOUNT_SID,
        to,
        from,
        body,
        status: 'queued',
        num_segments: String(sms.numSegments),
        direction: 'outbound-api',
        date_created: new Date().toUTCString(),
        api_version: '2010-04-01',
        uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`,
      });
    })().catch((err: unknown) => refuse(res, 500, 20500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    faults,
    apiUrl: `http://127.0.0.1:${port}`,
    sent,
    callbacks,
    routeCallbacks(publicBase, reachableBase) {
      route = { publicBase, reachableBase };
    },
    sentTo: (to) => sent.filter((m) => m.to === to),
    failDeliveries: (to, status, errorCode) => void failing.set(to, { status, errorCode }),
    tooManyRequests(times = 1) {
      limited += times;
    },
    get refused429() {
      return refused429;
    },
    optOut: (n) => optedOut.add(n),
    optIn: (n) => optedOut.delete(n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
