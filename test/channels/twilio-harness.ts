import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  OWNED_SMS_FROM,
  OWNED_WHATSAPP_FROM,
  postTwilio,
  startFakeTwilio,
  type FakeSms,
  type FakeTwilio,
} from '../fakes/twilio-server.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

export const PUBLIC_BASE = 'https://askgate.example.com';
export const SMS_FROM = OWNED_SMS_FROM;
export const WA_FROM = OWNED_WHATSAPP_FROM;

export interface TwilioWorld extends PlatformWorld<FakeTwilio> {
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeSms; to: string; callbackUrl: string }>;
  /** The person texts `body` (plus any extra params); resolves with the status and the TwiML answer. */
  text(
    from: string,
    body: string,
    extra?: Record<string, string>,
    signed?: boolean | string,
  ): Promise<{ status: number; body: string }>;
  status(sid: string, status: string, signed?: boolean | string): Promise<number>;
}

let seq = 14_155_550_000;
export const freshPhone = (): string => `+${++seq}`;
let smsSeq = 0;

/**
 * `statusCallbacks: false` keeps the fake from sending the delivery receipts of its messages (a test that judges
 * the status a question has before any receipt); `env` adds to the gateway's environment (REDIS_URL, say).
 */
export async function startTwilioWorld(
  options: { statusCallbacks?: boolean; env?: Record<string, string> } = {},
): Promise<TwilioWorld> {
  const fake = await startFakeTwilio();
  const world = await startPlatformWorld(fake, {
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_FROM: SMS_FROM,
    TWILIO_WHATSAPP_FROM: WA_FROM,
    TWILIO_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    ...options.env,
  });
  const gw = world.gw;
  if (options.statusCallbacks ?? true) fake.routeCallbacks(PUBLIC_BASE, gw.url);
  return {
    ...world,
    async ask(body) {
      const to = typeof body['recipient'] === 'string' ? (body['recipient'] as string) : freshPhone();
      const { id, message, callbackUrl } = await world.askDelivered(
        { channel: 'twilio', ...body, recipient: to },
        (delivery) => fake.sent.find((m) => m.sid === delivery['message_sid']),
      );
      return { id, message, to, callbackUrl };
    },
    text: (from, body, extra = {}, signed = true) =>
      postTwilio(
        gw.url,
        PUBLIC_BASE,
        '/channels/twilio/sms',
        {
          MessageSid: `SMin${String(++smsSeq).padStart(28, '0')}`,
          AccountSid: ACCOUNT_SID,
          From: from,
          To: SMS_FROM,
          Body: body,
          NumMedia: '0',
          ...extra,
        },
        signed,
      ),
    async status(sid, status, signed = true) {
      return (
        await postTwilio(
          gw.url,
          PUBLIC_BASE,
          '/channels/twilio/status',
          { MessageSid: sid, MessageStatus: status, AccountSid: ACCOUNT_SID },
          signed,
        )
      ).status;
    },
  };
}

/** The `#tag` a question's SMS starts with (`[#123] ...` → `#123`), for a reply tied to that question. */
export function tagIn(body: string): string {
  const m = /^\[(#\d{3})\]/.exec(body);
  if (m === null) throw new Error(`no [#tag] at the start of: ${body}`);
  return m[1] as string;
}
