import { postInbound, startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp-server.js';
import { gmailReply } from './email-mails.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

export const PUBLIC_BASE = 'https://askgate.example.com';
export const INBOUND_SECRET = 'email-inbound-secret-for-tests-0123456789';
export const LINK_SECRET = 'email-link-secret-for-tests-0123456789abcdef';
export const FROM = 'askgate@example.com';

export interface EmailWorld extends PlatformWorld<FakeSmtp> {
  /** Asks on the email channel (a fresh address unless the body names one); the message the SMTP server received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: ReceivedMail; to: string; callbackUrl: string }>;
  /** Posts a raw message to the inbound door, signed (or not, or with the given header). */
  inbound(raw: string, signature?: boolean | string, contentType?: string): ReturnType<typeof postInbound>;
  /** The messages that answer `messageId` in its thread (In-Reply-To), in arrival order. */
  thread(messageId: string): ReceivedMail[];
  /** The action links (`…/a/{token}`) in a message's HTML, by their label, rebased on the gateway's own URL. */
  links(message: ReceivedMail): Array<{ label: string; url: string }>;
  /** Gmail's reply to a question's message, from its recipient unless `from` is given. */
  gmail(q: { message: ReceivedMail; to: string }, said: string, from?: string): string;
}

let seq = 0;
export const freshAddress = (): string => `person${Date.now().toString(36)}${++seq}@example.com`;

export async function startEmailWorld(env: Record<string, string> = {}): Promise<EmailWorld> {
  const fake = await startFakeSmtp();
  const world = await startPlatformWorld(fake, {
    SMTP_URL: fake.url,
    EMAIL_FROM: `Askgate <${FROM}>`,
    EMAIL_INBOUND_SECRET: INBOUND_SECRET,
    EMAIL_SEND_PER_SECOND: '50',
    INTERACTIONS_PUBLIC_BASE_URL: PUBLIC_BASE,
    ASKGATE_LINK_SECRET: LINK_SECRET,
    ...env,
  });
  const gwUrl = world.gw.url;
  return {
    ...world,
    async ask(body) {
      const to = typeof body['recipient'] === 'string' ? (body['recipient'] as string) : freshAddress();
      const { id, message, callbackUrl } = await world.askDelivered(
        { channel: 'email', ...body, recipient: to },
        (delivery) => fake.received.find((m) => m.messageId === delivery['message_id']),
      );
      return { id, message, to, callbackUrl };
    },
    inbound: (raw, signature = true, contentType) => postInbound(gwUrl, raw, INBOUND_SECRET, signature, contentType),
    thread: (messageId) => fake.received.filter((m) => m.inReplyTo === messageId),
    links(message) {
      return [...message.html.matchAll(/<a href="([^"]+)"[^>]*class="ag-button"[^>]*>([^<]*)<\/a>/g)].map((m) => ({
        label: (m[2] as string)
          .replace(/&amp;/g, '&')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'"),
        url: (m[1] as string).replace(/&amp;/g, '&').replace(PUBLIC_BASE, gwUrl),
      }));
    },
    gmail: (q, said, from) =>
      gmailReply({
        inReplyTo: q.message.messageId,
        from: from ?? q.to,
        subject: q.message.subject,
        said,
        quoted: q.message.text,
      }),
  };
}
