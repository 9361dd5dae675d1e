import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { REPLY_TEXT_MAX } from './limits.js';
import { newTextOf } from './quoting.js';
import { clip } from '../outcome.js';

/**
 * A verified raw message, read with mailparser: either a person's mail (a reply, or a new message) or a delivery
 * status notification about one askgate sent (RFC 3464: `multipart/report; report-type=delivery-status`).
 */

export interface PersonMail {
  kind: 'person';
  /** Its own Message-ID (with angle brackets), or null when it carries none. */
  messageId: string | null;
  /** The Message-ID it answers (`In-Reply-To`), or null. */
  inReplyTo: string | null;
  /** Every Message-ID of its thread (`References`), oldest first. */
  references: string[];
  /** The sender's bare address. */
  from: string;
  subject: string;
  /** The text above the quote, without the signature (quoting.ts). */
  newText: string;
}

export interface DeliveryReport {
  kind: 'dsn';
  /** The Message-IDs of the messages it reports on (from the returned headers), and the In-Reply-To it carries. */
  about: string[];
  /** RFC 3464 per-recipient `Action` (`failed`, `delayed`, `delivered`, …) of the first recipient. */
  action: string;
  /** Its `Status` (`5.1.1`) and `Diagnostic-Code` (`smtp; 550 5.1.1 …`). */
  status: string;
  diagnostic: string;
}

export type InboundMail = PersonMail | DeliveryReport;

/** Reads one raw message. Throws only when mailparser cannot read it at all. */
export async function readMail(raw: Buffer): Promise<InboundMail> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  if (isDeliveryReport(mail)) return deliveryReport(mail, raw);
  const text = mail.text ?? '';
  return {
    kind: 'person',
    messageId: mail.messageId ?? null,
    inReplyTo: firstId(mail.inReplyTo),
    references: idsOf(mail.references),
    from: senderOf(mail.from),
    subject: mail.subject ?? '',
    newText: clip(newTextOf(text), REPLY_TEXT_MAX),
  };
}

function isDeliveryReport(mail: ParsedMail): boolean {
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  return (
    type?.value?.toLowerCase() === 'multipart/report' &&
    (type.params?.['report-type'] ?? '').toLowerCase() === 'delivery-status'
  );
}

function deliveryReport(mail: ParsedMail, raw: Buffer): DeliveryReport {
  // mailparser keeps text/rfc822-headers as an attachment but reads message/delivery-status into the text: the
  // fields are looked for in both.
  const parts = mail.attachments.map((a) => ({ type: a.contentType.toLowerCase(), text: a.content.toString('utf8') }));
  const status = `${parts.find((p) => p.type === 'message/delivery-status')?.text ?? ''}\n${mail.text ?? ''}`;
  // RFC 3464 §2.3: per-recipient fields (Action, Status, Diagnostic-Code); the first recipient's speak here.
  const field = (name: string): string =>
    new RegExp(`^${name}:[ \\t]*(.+(?:\\r?\\n[ \\t]+.+)*)`, 'im').exec(status)?.[1]?.replace(/\s+/g, ' ').trim() ?? '';
  // The returned message (its headers, or all of it) names the message it is about; whichever part mailparser
  // made of it, its Message-ID header is in the raw report, beside the report's own.
  const own = mail.messageId ?? null;
  const named = [...raw.toString('utf8').matchAll(/^Message-ID:[ \t]*(<[^<>\s]+>)/gim)]
    .map((m) => m[1] as string)
    .filter((id) => id !== own);
  const inReplyTo = firstId(mail.inReplyTo);
  return {
    kind: 'dsn',
    about: inReplyTo === null ? named : [...named, inReplyTo],
    action: field('Action').toLowerCase(),
    status: field('Status'),
    diagnostic: field('Diagnostic-Code'),
  };
}

/** Message-IDs as mailparser gives them (one string, a list, or a string of several). */
function idsOf(value: string | string[] | undefined): string[] {
  const all = (Array.isArray(value) ? value : value === undefined ? [] : [value]).join(' ');
  return [...all.matchAll(/<[^<>\s]+>/g)].map((m) => m[0]);
}

const firstId = (value: string | string[] | undefined): string | null => idsOf(value)[0] ?? null;

function senderOf(from: AddressObject | undefined): string {
  return (from?.value[0]?.address ?? '').trim();
}
