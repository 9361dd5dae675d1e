import { answerFromText } from '../replies.js';
import {
  ChannelError,
  DELIVERY_REF,
  type ChannelCore,
  type ChannelPlugin,
  type DispatchOutcome,
  type ThreadRef,
} from '../contract.js';
import { FlowPublisher } from './flows.js';
import { answerFlow, type FlowReplyContext } from './flow-reply.js';
import { GraphClient, GraphError } from './graph-client.js';
import type { SharedPacer } from '../shared-pacing.js';
import { ERROR_RE_ENGAGEMENT, TEXT_BODY_MAX } from './limits.js';
import type { Json } from './render.js';
import { editFlowMessage } from './review.js';
import { pickOfCode } from '../../src/core/dispatcher.js';
import type { WebhookRoute } from '../http.js';
import { webhookRoutes } from '../pipeline.js';
import { verify } from './verify.js';
import { clip, outcomeLine } from '../outcome.js';
import { parsePayload, type InboundEvent, type ReplyEvent, type StatusEvent, type TapEvent } from './webhook.js';
import {
  digits,
  handshakeResponse,
  INITIAL_STATUS,
  mediaLookup,
  personParams,
  quotedQuestion,
  receiptOf,
  STATUS_RANK,
  surfaceOf,
  whoIs,
} from './inbound.js';
import {
  FLOW_TOKEN_PREFIX,
  FORM_ONLY,
  NOTHING_OPEN,
  questionMessage,
  templateMessage,
  tellOutcome,
  textMessage,
  toChannelError,
} from './messages.js';
import { decodeActionCode } from '../../src/core/action-code.js';
import type { StoredInteraction } from '../../src/core/types.js';
import type { Logger } from '../../src/observability/logger.js';

export interface WhatsAppChannelOptions {
  token: string;
  phoneNumberId: string;
  /** The WhatsApp Business Account that owns the Flows; without it the channel advertises no form delivery. */
  businessAccountId: string | null;
  /** The Meta app secret: X-Hub-Signature-256 is an HMAC of the body with it. */
  appSecret: string;
  /** The verify token typed into the app's webhook settings; Meta echoes it in the GET handshake. */
  verifyToken: string;
  /** Graph API root with version. Default `https://graph.facebook.com/v21.0` (config: WHATSAPP_API_URL). */
  apiUrl: string;
  /** An approved template whose body has one parameter ({{1}}): it carries a question outside the 24-hour window. */
  templateName?: string | null;
  /** The template's language code. Default `en_US`. */
  templateLanguage?: string;
  /** Wait before retrying a throttled send (130429, 131056). Default 1000 ms. */
  throttleDelayMs?: number;
  /** The number's send budget shared by every process (channels/shared-pacing.ts); absent: no pacing across processes. */
  pacer?: SharedPacer;
  logger?: Logger;
}

export const WHATSAPP_WEBHOOK_PATH = '/channels/whatsapp/webhook';

/**
 * WhatsApp on Meta's Cloud API: reply buttons (confirm, short selects), a list (up to 10 choices), numbered text
 * beyond, a plain message answered by a reply (text), and a WhatsApp Flow (form). Inbound messages and delivery
 * receipts arrive on one signed webhook.
 */
export class WhatsAppChannel implements ChannelPlugin {
  readonly name = 'whatsapp';
  readonly surface = 'whatsapp' as const;
  readonly converses = true;
  readonly capabilities: { supportsFormDelivery: boolean; supportsReview: boolean };
  readonly graph: GraphClient;
  private readonly flows: FlowPublisher | null;
  private readonly flowReplies: FlowReplyContext;

  constructor(private readonly options: WhatsAppChannelOptions) {
    this.graph = new GraphClient({
      apiUrl: options.apiUrl,
      token: options.token,
      ...(options.throttleDelayMs === undefined ? {} : { throttleDelayMs: options.throttleDelayMs }),
      ...(options.pacer === undefined ? {} : { pacer: options.pacer }),
    });
    // Flows belong to a business account; without its id a form cannot be delivered, and the ask says so.
    this.flows = options.businessAccountId === null ? null : new FlowPublisher(this.graph, options.businessAccountId);
    // A review's edit needs the Flows too; its absence is said at delivery (channels/whatsapp/messages.ts).
    this.capabilities = { supportsFormDelivery: this.flows !== null, supportsReview: true };
    this.flowReplies = {
      flows: this.flows,
      send: (to, message, contextId) => this.send(to, message, contextId),
      tell: (outcome, event) => this.tell(outcome, event),
    };
  }

  async deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>> {
    if (interaction.recipient === null || digits(interaction.recipient) === '') {
      throw new ChannelError(
        'whatsapp',
        'invalid',
        'recipient is required: the WhatsApp number (E.164, e.g. +15551234567) to deliver to.',
      );
    }
    const to = digits(interaction.recipient);
    try {
      const message = await questionMessage(interaction, callbackUrl, this.flows);
      let via = 'session';
      let sent: Awaited<ReturnType<typeof this.graph.sendMessage>>;
      try {
        sent = await this.graph.sendMessage(this.options.phoneNumberId, {
          recipient_type: 'individual',
          to,
          ...message,
        });
      } catch (err) {
        if (!(err instanceof GraphError) || err.code !== ERROR_RE_ENGAGEMENT) throw err;
        // Outside the 24-hour customer-service window only an approved template may be sent.
        const template = this.options.templateName ?? null;
        if (template === null) {
          throw new ChannelError(
            'whatsapp',
            'refused',
            `the recipient is outside WhatsApp's 24-hour customer-service window (131047) and no template is configured; set WHATSAPP_TEMPLATE_NAME, or ask after they message you.`,
            null,
            { cause: err },
          );
        }
        sent = await this.graph.sendMessage(this.options.phoneNumberId, {
          recipient_type: 'individual',
          to,
          ...templateMessage(interaction, template, this.options.templateLanguage ?? 'en_US', callbackUrl),
        });
        via = 'template';
      }
      return {
        wa_id: sent.waId ?? to,
        message_id: sent.messageId,
        status: INITIAL_STATUS,
        via,
        [DELIVERY_REF]: sent.messageId,
      };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    const messageId = interaction.delivery?.['message_id'];
    const text = outcomeLine(interaction);
    if (messageId === undefined || interaction.recipient === null || text === null) return;
    // A sent WhatsApp message cannot be edited: the outcome is a short reply quoting the question.
    await this.send(
      digits(interaction.recipient),
      { type: 'text', text: { body: clip(text, TEXT_BODY_MAX) } },
      messageId,
    );
  }

  /**
   * A reminder quotes the question message (`context`). Outside the 24-hour customer window Meta refuses free text
   * (131047): the reminder then fails and is not sent again (the question's template was its one way in).
   */
  async remind(
    _interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const waId = delivery['wa_id'];
    const messageId = delivery['message_id'];
    if (waId === undefined || messageId === undefined)
      throw new ChannelError('whatsapp', 'invalid', 'the question has no delivered WhatsApp message to quote.');
    return this.postReply({ recipient: waId, replyToMessageId: messageId }, text);
  }

  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    try {
      const sent = await this.graph.sendMessage(this.options.phoneNumberId, {
        recipient_type: 'individual',
        to: digits(thread.recipient),
        type: 'text',
        text: { body: clip(text, TEXT_BODY_MAX) },
        ...(thread.replyToMessageId === undefined ? {} : { context: { message_id: thread.replyToMessageId } }),
      });
      return { wa_id: sent.waId ?? digits(thread.recipient), message_id: sent.messageId };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  webhooks(core: ChannelCore): WebhookRoute[] {
    return webhookRoutes<InboundEvent>(
      {
        channel: this.name,
        path: WHATSAPP_WEBHOOK_PATH,
        maxBodyBytes: 3 * 1024 * 1024,
        secret: this.options.appSecret,
        verify,
        parse: (rawBody) => parsePayload(rawBody),
        // Meta redelivers a webhook it thinks was not received; each message and receipt keeps its id.
        dedupeKey: (event) =>
          event.kind === 'status'
            ? `whatsapp:status:${event.messageId}:${event.status}`
            : `whatsapp:msg:${event.messageId}`,
        dispatch: async (event) => {
          if (event.kind === 'status') await this.onStatus(event, core);
          else if (event.kind === 'tap') await this.onTap(event, core);
          else if (event.kind === 'flow') await answerFlow(event, core, this.flowReplies);
          else await this.onReply(event, core);
          return undefined;
        },
        handshake: (request) => handshakeResponse(request.query, this.options.verifyToken),
      },
      core,
    );
  }

  /** A delivery receipt: applied to the question's delivery atomically, never moving it back; failed is final. */
  private async onStatus(event: StatusEvent, core: ChannelCore): Promise<void> {
    const rank = STATUS_RANK[event.status];
    if (rank === undefined || rank === 0) return;
    const failed = event.status === 'failed';
    // Outside the 24-hour window only a template goes through: with one configured, it carries the question, and
    // the failed session message is replaced by the template's delivery instead of failing the question.
    if (failed && event.errorCode === ERROR_RE_ENGAGEMENT && (await this.resendAsTemplate(event.messageId, core)))
      return;
    await core.receipt(this.name, event.messageId, receiptOf(event, rank));
  }

  /** Re-sends a pending question delivered as `ref` through WHATSAPP_TEMPLATE_NAME; false when it could not. */
  private async resendAsTemplate(ref: string, core: ChannelCore): Promise<boolean> {
    const template = this.options.templateName ?? null;
    if (template === null) return false;
    const stored = await core.findByDelivery(this.name, ref);
    if (stored === null || stored.status !== 'pending' || stored.recipient === null) return false;
    try {
      // The ticket is kept only as a hash, so a form's template names the question without its link.
      const sent = await this.graph.sendMessage(this.options.phoneNumberId, {
        recipient_type: 'individual',
        to: digits(stored.recipient),
        ...templateMessage(stored, template, this.options.templateLanguage ?? 'en_US', ''),
      });
      await core.redeliver(this.name, ref, {
        wa_id: sent.waId ?? digits(stored.recipient),
        message_id: sent.messageId,
        status: INITIAL_STATUS,
        via: 'template',
        [DELIVERY_REF]: sent.messageId,
      });
      return true;
    } catch (err) {
      this.options.logger?.warn(
        { channel: this.name, err: toChannelError(err).message },
        'whatsapp template re-send failed; the delivery is marked failed',
      );
      return false;
    }
  }

  /** A tap on a button or list row askgate rendered: the id names the question and the choice. */
  private async onTap(event: TapEvent, core: ChannelCore): Promise<void> {
    const code = decodeActionCode(event.replyId);
    if (code === null || code.pick.kind === 'page') return;
    const { pick } = code;
    const outcome = await core.dispatch({
      question: { by: 'id', id: code.interactionId },
      surface: surfaceOf(event.from),
      // A review's edit only looks: the answer comes with its Flow. Respond is a reply, never a button.
      pick: pickOfCode(pick),
      answeredBy: whoIs(event.from),
      params: { ...personParams(event), button_title: event.title },
      replyTo: null,
    });
    if (outcome.kind === 'ready' && pick.kind === 'review' && pick.decision === 'edit' && this.flows !== null) {
      const stored = outcome.question;
      await this.send(
        event.from,
        await editFlowMessage(stored, this.flows, `${FLOW_TOKEN_PREFIX}${stored.id}`),
        event.messageId,
      );
      return;
    }
    await this.tell(outcome, event);
  }

  /** A text or media message: the question it quotes (context.id), or else the sender's latest pending question. */
  private async onReply(event: ReplyEvent, core: ChannelCore): Promise<void> {
    const outcome = await core.dispatch({
      question: [
        ...(event.contextId === null ? [] : [{ by: 'delivery', ref: event.contextId } as const]),
        // The recipient is kept as the asker wrote it; a number may have been given with or without its `+`.
        { by: 'recipient', recipients: [event.from, `+${event.from}`] },
      ],
      surface: surfaceOf(event.from),
      pick: {
        kind: 'read',
        read: async (question) =>
          question.answer_format === 'form'
            ? {
                ok: false,
                refusal: { code: 'invalid_answer', field: null, reason: 'a form is answered in its Flow' },
                message: FORM_ONLY,
              }
            : {
                ok: true,
                answer: answerFromText(question, event.text),
                // Looked up only for a message that answers a question.
                params: { ...event.media, ...(await mediaLookup(this.graph, event.mediaId, this.options.logger)) },
              },
      },
      answeredBy: whoIs(event.from),
      params: personParams(event),
      replyTo: (question) => quotedQuestion(question, event.contextId),
    });
    if (outcome.kind === 'not_found') await this.converseOrTell(event, core);
    else await this.tell(outcome, event);
  }

  /**
   * A message with no question to answer is a conversation turn for the route of its number (ASKGATE_ROUTES),
   * answered with `context` quoting it; with no route, the person is told once that nothing is open.
   */
  private async converseOrTell(event: ReplyEvent, core: ChannelCore): Promise<void> {
    const taken = await core.converse?.({
      channel: this.name,
      recipient: event.from,
      messageId: event.messageId,
      text: event.text,
      // The webhook carries the quoted message's id, not its words; the person quoted it, so they read it.
      replyTo: event.contextId === null ? null : { message_id: event.contextId, status: 'read', text: '' },
      params: { ...event.media, ...personParams(event) },
      from: whoIs(event.from),
    });
    if (taken !== true) await this.send(event.from, textMessage(NOTHING_OPEN), event.messageId);
  }

  /**
   * Tells the person why their answer was not taken, quoting their message. A winning answer needs no words (the
   * outcome reply follows), and an event naming no question of theirs changes nothing and is told nothing.
   */
  private async tell(outcome: DispatchOutcome, event: { from: string; messageId: string }): Promise<void> {
    if (outcome.kind === 'answered' || outcome.kind === 'ready') return;
    if (outcome.kind === 'not_found' || outcome.kind === 'wrong_surface') return;
    await this.send(event.from, textMessage(tellOutcome(outcome)), event.messageId);
  }

  /** A courtesy message (a hint, an outcome): its failure is logged, never a reason to fail the webhook. */
  private async send(to: string, message: Json, contextId?: string): Promise<void> {
    try {
      await this.graph.sendMessage(this.options.phoneNumberId, {
        recipient_type: 'individual',
        to,
        ...message,
        ...(contextId === undefined ? {} : { context: { message_id: contextId } }),
      });
    } catch (err) {
      this.options.logger?.warn({ channel: this.name, err: toChannelError(err).message }, 'whatsapp send failed');
    }
  }
}
