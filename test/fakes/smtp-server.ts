import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server (the smtp-server package) on loopback, receiving what askgate's nodemailer sends, each message
 * read back with mailparser. It speaks SMTP as RFC 5321 has it, and a test makes it answer the way real servers
 * refuse: a 4yz reply (§4.2.1 "transient negative completion": greylisting's 451, a busy 421) to the next sends, or
 * a 5yz one (§4.2.1 "permanent negative completion": 550 mailbox unavailable) to an address. Inbound mail is
 * posted to the gateway as a relay would: the raw message, `message/rfc822`, signed with `X-Askgate-Signature`.
 */

/** A message the server accepted. */
export interface ReceivedMail {
  /** The envelope's RCPT TO. */
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
  messageId: string;
  inReplyTo: string | null;
  subject: string;
  text: string;
  html: string;
}

export interface FakeSmtp {
  /** `smtp://user:pass@127.0.0.1:<port>` (plain SMTP, authentication required as a provider's relay requires it). */
  url: string;
  received: ReceivedMail[];
  /** Messages to one address, in arrival order. */
  to(address: string): ReceivedMail[];
  /** The next `n` messages get a 4yz reply to RCPT TO (`code`, default 451). */
  deferNext(n: number, code?: number): void;
  /** Every message to `address` gets `550 5.1.1 mailbox unavailable` at RCPT TO. */
  reject(address: string): void;
  /** How many RCPT TO commands were answered with a 4yz, so far. */
  deferred: number;
  close(): Promise<void>;
}

export const SMTP_USER = 'askgate';
export const SMTP_PASSWORD = 'smtp-password-for-tests';

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const rejected = new Set<string>();
  const state = { defersLeft: 0, deferCode: 451, deferred: 0 };
  const server = new SMTPServer({
    secure: false,
    // No STARTTLS on loopback; authentication over plain text is allowed only because nothing leaves the host.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session: SMTPServerSession, callback) {
      if (state.defersLeft > 0) {
        state.defersLeft -= 1;
        state.deferred += 1;
        const err = Object.assign(new Error('4.7.1 Greylisted, please try again later'), {
          responseCode: state.deferCode,
        });
        callback(err);
        return;
      }
      if (rejected.has(address.address.toLowerCase())) {
        callback(Object.assign(new Error('5.1.1 Mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
              messageId: parsed.messageId ?? '',
              inReplyTo: parsed.inReplyTo ?? null,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    to: (address: string) => received.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())),
    deferNext(n: number, code = 451) {
      state.defersLeft = n;
      state.deferCode = code;
    },
    reject: (address: string) => void rejected.add(address.toLowerCase()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** `sha256=<hex>` of `body` under `secret`, as a relay signs what it posts (written out, not the channel's code). */
export function relaySignature(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Posts a raw message to the gateway's inbound door; `signature` false leaves the header out, a string replaces it. */
export async function postInbound(
  gatewayUrl: string,
  raw: string,
  secret: string,
  signature: boolean | string = true,
  contentType = 'message/rfc822',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = Buffer.from(raw.replace(/\r?\n/g, '\r\n'), 'utf8');
  const headers: Record<string, string> = { 'content-type': contentType };
  if (signature === true) headers['x-askgate-signature'] = relaySignature(body, secret);
  else if (typeof signature === 'string') headers['x-askgate-signature'] = signature;
  const res = await fetch(`${gatewayUrl}/channels/email/inbound`, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}
