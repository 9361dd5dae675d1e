import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { ChannelError } from '../contract.js';
import type { SharedPacer } from '../shared-pacing.js';
import type { RenderedEmail } from './render.js';

/**
 * The SMTP side of the channel: one nodemailer transport on SMTP_URL, every send paced through the shared budget,
 * and what its errors mean. A 4yz reply or a connection lost on the way is a `network` ChannelError whose cause
 * channels/transient.ts reads as transient, so the core sends the question again (src/core/delivery-retry.ts); a
 * 5yz reply is the server's final refusal.
 */

/** One message to send: where, the rendered parts, and its place in a thread. */
export interface Outgoing {
  to: string;
  mail: RenderedEmail;
  messageId: string;
  inReplyTo?: string;
  references?: readonly string[];
}

export class SmtpSender {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly pacer: SharedPacer,
  ) {
    // One connection per message (no pool): a process sends questions, not newsletters, and a dead pooled
    // connection would fail the next question. Timeouts bound one send; the core's retry bounds the rest.
    this.transport = nodemailer.createTransport(smtpUrl, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    } as SMTPTransport.Options);
  }

  /** Sends one message in its paced turn; resolves once the SMTP server accepted it. */
  async send(message: Outgoing): Promise<void> {
    const wait = await this.pacer.reserve(null);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      await this.transport.sendMail({
        from: this.from,
        to: message.to,
        subject: message.mail.subject,
        text: message.mail.text,
        html: message.mail.html,
        messageId: message.messageId,
        ...(message.inReplyTo === undefined ? {} : { inReplyTo: message.inReplyTo }),
        ...(message.references === undefined || message.references.length === 0
          ? {}
          : { references: [...message.references] }),
        // A question is not a bulk message; auto-responders (vacation notices) should not answer it.
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
      });
    } catch (err) {
      throw smtpError(err);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** nodemailer's failure as a ChannelError: a 5yz reply refused, anything else (a 4yz, the connection) network. */
export function smtpError(err: unknown): ChannelError {
  if (err instanceof ChannelError) return err;
  const { responseCode, response } = (err ?? {}) as { responseCode?: unknown; response?: unknown };
  const said = typeof response === 'string' ? response.slice(0, 300) : err instanceof Error ? err.message : String(err);
  if (typeof responseCode === 'number' && responseCode >= 500)
    return new ChannelError('email', 'refused', `the SMTP server refused the message: ${said}`, null, { cause: err });
  if (typeof responseCode === 'number')
    return new ChannelError('email', 'network', `the SMTP server deferred the message: ${said}`, null, {
      cause: err,
    });
  return new ChannelError('email', 'network', `could not reach the SMTP server: ${said}`, null, { cause: err });
}
