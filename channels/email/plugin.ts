import { createHash, randomBytes } from 'node:crypto';
import {
  ChannelError,
  DELIVERY_REF,
  type ChannelCore,
  type ChannelPlugin,
  type ChannelStartContext,
  type ThreadRef,
} from '../contract.js';
import { json, type WebhookResponse, type WebhookRoute } from '../http.js';
import { outcomeLine } from '../outcome.js';
import { webhookRoutes } from '../pipeline.js';
import { addressRefusal } from './address.js';
import { readMail, type DeliveryReport, type PersonMail } from './inbound.js';
import { INBOUND_MAX_BYTES, REVIEW_DETAILS_MAX } from './limits.js';
import { answerReply, replyWords } from './reply.js';
import { askOf, renderEmail, renderNote, type EmailButton } from './render.js';
import type { SmtpSender } from './send.js';
import { threads } from './threads.js';
import { verify } from './verify.js';
import { parseRawMail, type RawMail } from './webhook.js';
import type { ActionLinkMaker } from '../../src/core/action-links.js';
import { actionText } from '../../src/core/review-view.js';
import type { ChannelState } from '../../src/core/channel-state.js';
import type { StoredInteraction } from '../../src/core/types.js';
import type { Logger } from '../../src/observability/logger.js';

export interface EmailChannelOptions {
  /** The sender as configured (EMAIL_FROM) and its bare address, whose domain names every Message-ID. */
  from: string;
  fromAddress: string;
  /** EMAIL_INBOUND_SECRET; null: the inbound door refuses every post. */
  inboundSecret: string | null;
  sender: SmtpSender;
  state: ChannelState;
  logger?: Logger;
}

export const EMAIL_INBOUND_PATH = '/channels/email/inbound';

/** DSN receipts rank after every other state: failed is final (RFC 3464 `Action: failed`). */
const FAILED_RANK = 9;

/**
 * Email through SMTP (nodemailer): a question is one message whose choices are signed action links (`/a/{token}`:
 * the link's page shows what it will answer, and only its button answers), whose form links its form page, and
 * whose text question asks for a reply. Replies and delivery status notifications come back through one signed door
 * that takes the raw message. Email cannot edit a sent message: outcomes, reminders and conversation replies are
 * further messages in the question's thread (`In-Reply-To`, `References`).
 */
export class EmailChannel implements ChannelPlugin {
  readonly name = 'email';
  readonly surface = 'email' as const;
  readonly converses = true;
  readonly capabilities = {
    supportsFormDelivery: true,
    supportsReview: true,
    recipientRefusal: (recipient: string | null): string | null => addressRefusal(recipient),
  };
  private links: ActionLinkMaker | null = null;
  private readonly domain: string;

  constructor(private readonly options: EmailChannelOptions) {
    this.domain = options.fromAddress.slice(options.fromAddress.lastIndexOf('@') + 1);
  }

  async start({ core }: ChannelStartContext): Promise<void> {
    // The choices of a confirm or select question are action links: without them the mail could only ask for a reply.
    if (core.actionLinks === null)
      throw new Error(
        'the email channel needs action links: set ASKGATE_LINK_SECRET (and INTERACTIONS_PUBLIC_BASE_URL).',
      );
    this.links = core.actionLinks;
  }

  async stop(): Promise<void> {
    this.options.sender.close();
  }

  async deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>> {
    const to = interaction.recipient;
    const refusal = addressRefusal(to);
    if (to === null || refusal !== null) throw new ChannelError('email', 'invalid', `recipient ${refusal}`);
    const ask = askOf(interaction, this.buttons(interaction, to, callbackUrl));
    const action = interaction.action;
    // A review shows the proposed call (name, description, arguments as key: value lines) above its button.
    if (action !== undefined) ask.details = actionText(action, { budget: REVIEW_DETAILS_MAX });
    const mail = renderEmail(interaction, ask);
    const messageId = this.newMessageId(interaction.id);
    await this.options.sender.send({ to, mail, messageId });
    return { to, message_id: messageId, subject: mail.subject, [DELIVERY_REF]: messageId };
  }

  /** The message's buttons: one action link per choice, the form page's link, or none (a text question). */
  private buttons(interaction: StoredInteraction, to: string, callbackUrl: string): EmailButton[] {
    const link = (answer: boolean | string): string => {
      if (this.links === null) throw new ChannelError('email', 'invalid', 'action links are not set up.');
      return this.links.link(interaction, { channel: this.name, recipient: to, answer });
    };
    switch (interaction.answer_format) {
      case 'confirm':
        return [
          { label: 'Yes', url: link(true) },
          { label: 'No', url: link(false) },
        ];
      case 'select':
        return (interaction.choices ?? []).map((choice) => ({ label: choice, url: link(choice) }));
      case 'text':
        return [];
      case 'review':
        // The review page (the question's form page) approves, edits or rejects; see README, "Reviews".
        return callbackUrl === '' ? [] : [{ label: 'Open the review', url: callbackUrl }];
      default:
        // A form (and anything else answered on a page) links its callback page; see README, "Forms".
        return callbackUrl === '' ? [] : [{ label: 'Open the form', url: callbackUrl }];
    }
  }

  /** `<id.random@sender's domain>`: unique, and unguessable, since a reply or DSN naming it is trusted as about it. */
  private newMessageId(seed: string): string {
    const tag = createHash('sha256').update(seed).digest('hex').slice(0, 8);
    return `<${tag}.${randomBytes(12).toString('hex')}@${this.domain}>`;
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    // A person is named by their address (`email:` is for approvers lists, not for reading).
    const line = outcomeLine(interaction, { who: (answerer) => answerer.platformId ?? answerer.id });
    const delivery = interaction.delivery;
    if (line === null || delivery === null || interaction.recipient === null) return;
    await this.inThread(interaction.recipient, delivery, line, interaction.question);
  }

  async remind(
    interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const to = delivery['to'];
    if (to === undefined)
      throw new ChannelError('email', 'invalid', 'the question has no delivered message to remind about.');
    return { to, message_id: await this.inThread(to, delivery, text, null) };
  }

  /** A further message in a question's thread: `Re:` its subject, answering its Message-ID. */
  private async inThread(
    to: string,
    delivery: Readonly<Record<string, string>>,
    note: string,
    question: string | null,
  ): Promise<string> {
    const root = delivery['message_id'];
    const subject = `Re: ${delivery['subject'] ?? ''}`.trim();
    const messageId = this.newMessageId(root ?? to);
    await this.options.sender.send({
      to,
      mail: renderNote(subject, note, question),
      messageId,
      ...(root === undefined ? {} : { inReplyTo: root, references: [root] }),
    });
    return messageId;
  }

  /** A route's answer to a conversation turn: a reply to the person's message, in its thread. */
  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    const known = await threads(this.options.state).recall(thread.recipient, thread.replyToMessageId ?? null);
    const messageId = this.newMessageId(thread.recipient);
    await this.options.sender.send({
      to: thread.recipient,
      mail: renderNote(known?.subject ?? 'Re: your message', text, null),
      messageId,
      ...(thread.replyToMessageId === undefined
        ? {}
        : {
            inReplyTo: thread.replyToMessageId,
            references: [...(known?.references ?? []), thread.replyToMessageId],
          }),
    });
    return { to: thread.recipient, message_id: messageId };
  }

  webhooks(core: ChannelCore): WebhookRoute[] {
    return webhookRoutes<RawMail>(
      {
        channel: this.name,
        path: EMAIL_INBOUND_PATH,
        maxBodyBytes: INBOUND_MAX_BYTES,
        secret: this.options.inboundSecret ?? '',
        verify,
        parse: (rawBody, request) => [parseRawMail(rawBody, request.headers)],
        // A relay that retries posts the same bytes again: the second copy changes nothing.
        dedupeKey: (mail) => `email:raw:${createHash('sha256').update(mail.raw).digest('hex')}`,
        dispatch: (mail) => this.onMail(mail, core),
      },
      core,
    );
  }

  private async onMail(raw: RawMail, core: ChannelCore): Promise<WebhookResponse> {
    const mail = await readMail(raw.raw);
    if (mail.kind === 'dsn') return json(200, { ok: true, outcome: await this.onReport(mail, core) });
    return json(200, { ok: true, outcome: await this.onPersonMail(mail, core) });
  }

  /** A delivery status notification: a failed delivery of a question's message marks that delivery failed. */
  private async onReport(report: DeliveryReport, core: ChannelCore): Promise<string> {
    if (report.action !== 'failed') return 'ignored';
    for (const id of report.about) {
      const done = await core.receipt(this.name, id, {
        status: 'failed',
        rank: FAILED_RANK,
        state: 'failed',
        error: {
          code: report.status || 'failed',
          message: report.diagnostic || 'the mail server reported it undelivered',
        },
      });
      if (done.id !== null) return done.outcome;
    }
    return 'unknown';
  }

  /** A person's mail: a reply to a question answers it; any other is a conversation turn (or nothing). */
  private async onPersonMail(mail: PersonMail, core: ChannelCore): Promise<string> {
    // The question it replies to: the message it names in In-Reply-To, else the latest of its References.
    const candidates = [mail.inReplyTo, ...[...mail.references].reverse()].filter((id): id is string => id !== null);
    for (const id of candidates) {
      const stored = await core.findByDelivery(this.name, id);
      if (stored !== null) return this.onReply(mail, stored, core);
    }
    if (core.converse === undefined || mail.from === '') return 'not_found';
    const turnId = mail.messageId ?? `<${randomBytes(12).toString('hex')}@${this.domain}>`;
    await threads(this.options.state).remember(mail.from, turnId, {
      subject: /^re:/i.test(mail.subject) ? mail.subject : `Re: ${mail.subject}`,
      references: [
        ...mail.references,
        ...(mail.inReplyTo === null || mail.references.includes(mail.inReplyTo) ? [] : [mail.inReplyTo]),
      ],
    });
    const taken = await core.converse({
      channel: this.name,
      recipient: mail.from,
      messageId: turnId,
      text: mail.newText,
      replyTo: null,
      params: this.params(mail),
      from: `email:${mail.from}`,
    });
    return taken ? 'conversation' : 'not_found';
  }

  private async onReply(mail: PersonMail, question: StoredInteraction, core: ChannelCore): Promise<string> {
    const ref = question.delivery?.[DELIVERY_REF] as string;
    const outcome = await core.dispatch({
      question: { by: 'delivery', ref },
      // The surface whose message it answers: a question sent to several addresses is answered per address.
      surface: { channel: this.name, delivery: { [DELIVERY_REF]: ref } },
      pick: { kind: 'read', read: (stored) => answerReply(stored, mail) },
      answeredBy: `email:${question.recipient ?? mail.from}`,
      params: this.params(mail),
      replyTo: (stored) => ({ message_id: mail.inReplyTo ?? ref, status: stored.status, text: stored.question }),
    });
    if (outcome.kind === 'refused' && outcome.refusal.field === 'from') {
      // Not the person it was sent to: recorded, and no mail goes back to an address that may be forged.
      await core.recordRefused(question.id, this.name, `email:${mail.from}`);
      return 'refused';
    }
    const words = replyWords(outcome);
    const delivery = question.delivery;
    if (words !== null && delivery !== null && question.recipient !== null)
      await this.inThread(question.recipient, delivery, words, null);
    return outcome.kind;
  }

  /** The channel's params of an answer (README, "reply_to and params"). */
  private params(mail: PersonMail): Record<string, string> {
    return {
      from: mail.from,
      subject: mail.subject,
      ...(mail.messageId === null ? {} : { message_id: mail.messageId }),
    };
  }
}
