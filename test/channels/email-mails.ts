/**
 * Raw inbound messages, written out as the mail clients and servers send them (headers, MIME structure, transfer
 * encodings and quoting as each writes its replies), for the email channel's door. Each takes the Message-ID it
 * answers and the sender; the body is the person's words above the client's own quoting of the question.
 */

export interface ReplyParts {
  /** The question's Message-ID (with angle brackets). */
  inReplyTo: string;
  from: string;
  subject: string;
  /** What the person typed. */
  said: string;
  /** The question as the client quotes it. */
  quoted: string;
  messageId?: string;
  /** References, when not just `inReplyTo`. */
  references?: string;
}

let seq = 0;
const nextId = (domain: string): string => `<reply.${Date.now().toString(36)}.${++seq}@${domain}>`;
const quote = (text: string): string =>
  text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');

/** Gmail (web): multipart/alternative; the plain part quotes with `>` under a wrapped "On … wrote:" line. */
export function gmailReply(p: ReplyParts): string {
  const boundary = '000000000000f3c1a2060b9d7e21';
  return `MIME-Version: 1.0
Date: Thu, 3 Dec 2026 16:05:12 +0000
Message-ID: ${p.messageId ?? nextId('mail.gmail.com')}
In-Reply-To: ${p.inReplyTo}
References: ${p.references ?? p.inReplyTo}
Subject: Re: ${p.subject}
From: Ann Lee <${p.from}>
To: Askgate <askgate@example.com>
Content-Type: multipart/alternative; boundary="${boundary}"

--${boundary}
Content-Type: text/plain; charset="UTF-8"

${p.said}

On Thu, Dec 3, 2026 at 4:01 PM Askgate <askgate@example.com>
wrote:

${quote(p.quoted)}

--${boundary}
Content-Type: text/html; charset="UTF-8"

<div dir="ltr">${p.said}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Thu, Dec 3, 2026
 at 4:01 PM Askgate &lt;<a href="mailto:askgate@example.com">askgate@example.com</a>&gt; wrote:<br></div>
<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);
padding-left:1ex">${p.quoted}</blockquote></div>

--${boundary}--
`;
}

/** Apple Mail (iPhone): text/plain, quoted-printable, "Sent from my iPhone", the attribution itself quoted. */
export function appleMailReply(p: ReplyParts): string {
  const qp = (text: string): string => text.replace(/=/g, '=3D');
  return `Content-Type: text/plain;
\tcharset=utf-8
Content-Transfer-Encoding: quoted-printable
Mime-Version: 1.0 (1.0)
Subject: Re: ${p.subject}
From: Ann Lee <${p.from}>
In-Reply-To: ${p.inReplyTo}
Date: Thu, 3 Dec 2026 16:06:40 +0000
Cc: 
References: ${p.references ?? p.inReplyTo}
To: askgate@example.com
Message-Id: ${p.messageId ?? nextId('example.com')}
X-Mailer: iPhone Mail (22B91)

${qp(p.said)}

Sent from my iPhone

> On 3 Dec 2026, at 16:01, Askgate <askgate@example.com> wrote:
>=20
${qp(quote(p.quoted))}
`;
}

/** Outlook (desktop/web): the rule, then the From:/Sent:/To:/Subject: block, nothing quoted with `>`. */
export function outlookReply(p: ReplyParts): string {
  const boundary = '_000_AM0PR10MB3251A1B2C3D4E5F6AM0PR10MB3251EURP_';
  return `From: Ann Lee <${p.from}>
To: Askgate <askgate@example.com>
Subject: RE: ${p.subject}
Thread-Topic: ${p.subject}
Thread-Index: AQHbRk1xN2c3x0T0nE2e6Ybm0o9F5A==
Date: Thu, 3 Dec 2026 16:07:03 +0000
Message-ID: ${p.messageId ?? nextId('AM0PR10MB3251.EURPRD10.PROD.OUTLOOK.COM')}
References: ${p.references ?? p.inReplyTo}
In-Reply-To: ${p.inReplyTo}
Accept-Language: en-GB, en-US
Content-Language: en-GB
X-MS-Has-Attach:
Content-Type: multipart/alternative; boundary="${boundary}"
MIME-Version: 1.0

--${boundary}
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

${p.said}

________________________________
From: Askgate <askgate@example.com>
Sent: Thursday, December 3, 2026 4:01 PM
To: Ann Lee <${p.from}>
Subject: ${p.subject}

${p.quoted}

--${boundary}
Content-Type: text/html; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

<html><head></head><body><div>${p.said}</div><hr style=3D"display:inline-block;width:98%">
<div id=3D"divRplyFwdMsg"><b>From:</b> Askgate<br><b>Sent:</b> Thursday, December 3, 2026 4:01 PM</div>
<div>${p.quoted}</div></body></html>

--${boundary}--
`;
}

/** Thunderbird: format=flowed text, a "-- " signature, then "On 03/12/2026 16:01, Askgate wrote:" and `>` quotes. */
export function thunderbirdReply(p: ReplyParts & { signature: string }): string {
  return `Message-ID: ${p.messageId ?? nextId('example.com')}
Date: Thu, 3 Dec 2026 16:08:00 +0000
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
Subject: Re: ${p.subject}
To: Askgate <askgate@example.com>
References: ${p.references ?? p.inReplyTo}
From: Ann Lee <${p.from}>
In-Reply-To: ${p.inReplyTo}
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 8bit

${p.said}

-- 
${p.signature}

On 03/12/2026 16:01, Askgate wrote:
${quote(p.quoted)}
`;
}

/** A new message (no In-Reply-To): a conversation turn when a route names the email channel. */
export function newMail(p: { from: string; subject: string; said: string; messageId?: string }): string {
  return `Message-ID: ${p.messageId ?? nextId('example.com')}
Date: Thu, 3 Dec 2026 16:09:00 +0000
MIME-Version: 1.0
Subject: ${p.subject}
From: ${p.from}
To: askgate@example.com
Content-Type: text/plain; charset=UTF-8

${p.said}
`;
}

/** Postfix's bounce (RFC 3464): multipart/report with the delivery status and the returned message's headers. */
export function postfixBounce(p: { about: string; recipient: string; subject: string }): string {
  const boundary = '3F5A1E0C2B.1764777722/mail.example.com';
  return `Return-Path: <>
From: MAILER-DAEMON@mail.example.com (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: askgate@example.com
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
\tboundary="${boundary}"
Content-Transfer-Encoding: 8bit
Message-Id: <20261203160202.3F5A1E0C2B@mail.example.com>
Date: Thu,  3 Dec 2026 16:02:02 +0000 (UTC)

This is a MIME-encapsulated message.

--${boundary}
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mail.example.com.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<${p.recipient}>: host mx.example.net[192.0.2.25] said: 550 5.1.1
    <${p.recipient}>: Recipient address rejected: User unknown

--${boundary}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mail.example.com
X-Postfix-Queue-ID: 3F5A1E0C2B
X-Postfix-Sender: rfc822; askgate@example.com
Arrival-Date: Thu,  3 Dec 2026 16:02:00 +0000 (UTC)

Final-Recipient: rfc822; ${p.recipient}
Original-Recipient: rfc822;${p.recipient}
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.net
Diagnostic-Code: smtp; 550 5.1.1 <${p.recipient}>: Recipient address
    rejected: User unknown

--${boundary}
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

Return-Path: <askgate@example.com>
From: askgate@example.com
To: ${p.recipient}
Subject: ${p.subject}
Message-ID: ${p.about}
Date: Thu, 03 Dec 2026 16:02:00 +0000

--${boundary}--
`;
}
