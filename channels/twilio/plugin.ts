import twilio from 'twilio';
import { ChannelError, DELIVERY_REF, type ChannelCore, type ChannelPlugin, type ThreadRef } from '../contract.js';
import { clip, outcomeLine } from '../outcome.js';
import { answerFromText } from '../replies.js';
import { HELP_WORDS, OPT_IN_WORDS, OPT_OUT_WORDS, WHATSAPP_BODY_MAX } from './limits.js';
import { isWhatsApp, renderText, splitTag, tagOf } from './render.js';
import { text as textResponse, type WebhookResponse, type WebhookRoute } from '../http.js';
import { webhookRoutes } from '../pipeline.js';
import { BaseUrlRequestClient, TWILIO_HOST, toChannelError } from './rest.js';
import { keyword, OPTED_OUT, tell, twilioErrorWords } from './words.js';
import { verify } from './verify.js';
import { formParams, parseInbound, parseStatus, type InboundMessage, type StatusCallback } from './webhook.js';
import { type ActionPick, decodeActionCode } from '../../src/core/action-code.js';
import type { StoredInteraction } from '../../src/core/types.js';
import type { SharedPacer } from '../shared-pacing.js';
import type { Logger } from '../../src/observability/logger.js';

export interface TwilioChannelOptions {
  accountSid: string;
  authToken: string;
  /** The SMS sender (E.164 or a messaging service's number); SMS asks are refused without it. */
  from: string | null;
  /** The WhatsApp sender (`+1…` or `whatsapp:+1…`); asks to `whatsapp:` recipients are refused without it. */
  whatsappFrom: string | null;
  /** Twilio's REST root. Default `https://api.twilio.com` (config: TWILIO_API_URL). */
  apiUrl: string;
  /** INTERACTIONS_PUBLIC_BASE_URL: Twilio signs the public URL of each webhook, and status callbacks go there. */
  publicBaseUrl: string | null;
  /** The senders' budget shared by every process (channels/shared-pacing.ts), one per sender number; absent: none. */
  pacer?: (sender: string) => SharedPacer;
  logger?: Logger;
}

export const TWILIO_SMS_PATH = '/channels/twilio/sms';
export const TWILIO_STATUS_PATH = '/channels/twilio/status';

/** A TwiML answer: the text to send back, or silence. */
/** The answer a quick-reply code stands for (a review's codes reach no Twilio question until it shows reviews). */
function answerOfCode(pick: Exclude<ActionPick, { kind: 'page' }>, stored: StoredInteraction): unknown {
  if (pick.kind === 'confirm') return pick.value;
  if (pick.kind === 'review') return { decision: pick.decision };
  return (stored.choices ?? [])[pick.index];
}

function twimlReply(said: string | null): WebhookResponse {
  const twiml = new twilio.twiml.MessagingResponse();
  if (said !== null) twiml.message(said);
  return textResponse(200, twiml.toString(), 'text/xml; charset=utf-8');
}

/** Delivery statuses in order; a late callback never moves a message back. */
const STATUS_RANK: Record<string, number> = {
  pending: 0,
  accepted: 1,
  queued: 2,
  sending: 3,
  sent: 4,
  delivered: 5,
  read: 6,
  undelivered: 7,
  failed: 7,
};

/**
 * SMS and WhatsApp via Twilio, through the twilio package: every question is plain text (numbered choices, "Reply
 * YES or NO", free text) and every answer a reply. No form delivery: a form asked here is refused at ask time.
 */
export class TwilioChannel implements ChannelPlugin {
  readonly name = 'twilio';
  readonly surface = 'twilio' as const;
  readonly converses = true;
  /** A review's edit is its callback page, linked in the text; approve, reject and respond are replies. */
  readonly capabilities = { supportsFormDelivery: false, supportsReview: true };
  readonly client: twilio.Twilio;

  constructor(private readonly options: TwilioChannelOptions) {
    const base = options.apiUrl.replace(/\/+$/, '');
    this.client = twilio(
      options.accountSid,
      options.authToken,
      base === TWILIO_HOST ? {} : { httpClient: new BaseUrlRequestClient(base) },
    );
  }

  async deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>> {
    const to = interaction.recipient;
    if (to === null || to.trim() === '')
      throw new ChannelError(
        'twilio',
        'invalid',
        'recipient is required: a phone number (+15551234567) or whatsapp:+15551234567.',
      );
    try {
      const sent = await this.send(to, renderText(interaction, callbackUrl, to));
      return {
        to,
        message_sid: sent,
        message_id: sent,
        tag: tagOf(interaction.id),
        status: 'pending',
        [DELIVERY_REF]: sent,
      };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  /** Sends one message; resolves with its SID. Status callbacks go to the public status door. */
  private async send(to: string, body: string): Promise<string> {
    const from = isWhatsApp(to) ? this.options.whatsappFrom : this.options.from;
    if (from === null)
      throw new ChannelError(
        'twilio',
        'invalid',
        isWhatsApp(to)
          ? 'TWILIO_WHATSAPP_FROM is not set, so nothing can be sent to a whatsapp: address.'
          : 'TWILIO_FROM is not set, so no SMS can be sent.',
      );
    const sender = isWhatsApp(to) && !isWhatsApp(from) ? `whatsapp:${from}` : from;
    const pacer = this.options.pacer?.(sender);
    for (let attempt = 0; ; attempt++) {
      // The sender's throughput is one budget for every process; Twilio would queue the excess on its side.
      if (pacer !== undefined) {
        const wait = await pacer.reserve(null);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        const message = await this.client.messages.create({
          to,
          from: sender,
          body: clip(body, WHATSAPP_BODY_MAX),
          ...(this.options.publicBaseUrl === null
            ? {}
            : { statusCallback: `${this.options.publicBaseUrl}${TWILIO_STATUS_PATH}` }),
        });
        return message.sid;
      } catch (err) {
        // A 429 pushes the sender's shared budget back a second for every process; the next reservation retries.
        const status = (err as { status?: unknown } | null)?.status;
        if (pacer === undefined || status !== 429 || attempt >= 2) throw err;
        await pacer.pushBack(null, 1000);
      }
    }
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    const line = outcomeLine(interaction);
    // An answer given here was already acknowledged in the reply to it; an SMS costs money, so no second note.
    if (
      line === null ||
      interaction.delivery === null ||
      interaction.recipient === null ||
      interaction.result?.surface === 'twilio'
    )
      return;
    await this.send(interaction.recipient, `[#${tagOf(interaction.id)}] ${line}`);
  }

  /**
   * SMS has no threads: a reminder is a message to the same number, from the same sender, carrying the question's
   * tag (`[#tag]`) as the outcome line does, so a reply quoting the tag still answers this question.
   */
  async remind(
    interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const to = delivery['to'];
    if (to === undefined)
      throw new ChannelError('twilio', 'invalid', 'the question has no delivered message to remind about.');
    try {
      return { to, message_sid: await this.send(to, `[#${tagOf(interaction.id)}] ${text}`) };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    try {
      return { to: thread.recipient, message_sid: await this.send(thread.recipient, text) };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  webhooks(core: ChannelCore): WebhookRoute[] {
    const common = {
      channel: this.name,
      maxBodyBytes: 256 * 1024,
      secret: this.options.authToken,
      verify,
      // Twilio signs the URL it was configured with (query string included): the public one.
      publicBaseUrl: this.options.publicBaseUrl,
    };
    return [
      ...webhookRoutes<InboundMessage>(
        {
          ...common,
          path: TWILIO_SMS_PATH,
          parse: (rawBody) => [parseInbound(formParams(rawBody))],
          // Twilio retries a webhook that timed out; the second copy must change nothing.
          dedupeKey: (message) => `twilio:msg:${message.messageSid}`,
          dispatch: async (message) => twimlReply(await this.onMessage(message, core)),
          duplicate: twimlReply(null),
        },
        core,
      ),
      ...webhookRoutes<StatusCallback>(
        {
          ...common,
          path: TWILIO_STATUS_PATH,
          parse: (rawBody) => [parseStatus(formParams(rawBody))],
          dedupeKey: () => null,
          dispatch: async (status) => {
            await this.onStatus(status, core);
            return undefined;
          },
          ok: { status: 204 },
        },
        core,
      ),
    ];
  }

  /** A delivery receipt: applied to the question's delivery atomically, never moving it back. */
  private async onStatus(status: StatusCallback, core: ChannelCore): Promise<void> {
    const rank = STATUS_RANK[status.status];
    if (rank === undefined) return; // a status word Twilio added later: nothing to order it by
    const failed = status.status === 'failed' || status.status === 'undelivered';
    await core.receipt(this.name, status.messageSid, {
      status: status.status,
      rank,
      state: failed ? 'failed' : status.status === 'delivered' || status.status === 'read' ? status.status : 'sent',
      ...(failed
        ? { error: { code: status.errorCode ?? status.status, message: twilioErrorWords(status.errorCode) } }
        : status.errorCode === null
          ? {}
          : { error: { code: status.errorCode, message: twilioErrorWords(status.errorCode) } }),
    });
  }

  /** Handles one inbound message; returns what to text back (TwiML), or null for silence. */
  private async onMessage(message: InboundMessage, core: ChannelCore): Promise<string | null> {
    const word = keyword(message.body);
    // Twilio and the carriers act on these themselves (an opted-out number is refused with 21610 at the next ask);
    // they are never an answer, and Twilio sends its own confirmation.
    const optOut = message.optOutType === 'STOP' || (message.optOutType === null && OPT_OUT_WORDS.includes(word));
    if (optOut) await this.optedOut(message.from, core);
    if (optOut || message.optOutType !== null || OPT_IN_WORDS.includes(word) || HELP_WORDS.includes(word)) return null;
    const sid = message.originalRepliedMessageSid;
    const code = message.buttonPayload === null ? null : decodeActionCode(message.buttonPayload);
    const { tag, text: untagged } = splitTag(message.body);
    // Tied to the question by the message it replied to or by its #tag: then the reply quotes it, and the tag goes.
    const tied = (stored: StoredInteraction): boolean =>
      (sid !== null && stored.delivery?.['message_sid'] === sid) || (tag !== null && tagOf(stored.id) === tag);
    const outcome = await core.dispatch({
      // Which question: the message it replied to (WhatsApp's OriginalRepliedMessageSid) or the question a button's
      // payload names — that question, even when it has ended — or else the sender's latest open question (the one
      // its #tag names, when it names one).
      question: [
        ...(sid === null ? [] : [{ by: 'delivery', ref: sid } as const]),
        ...(code === null ? [] : [{ by: 'id', id: code.interactionId } as const]),
        { by: 'recipient', recipients: [message.from], prefer: (stored) => tag !== null && tagOf(stored.id) === tag },
      ],
      // Only the number a question went to may answer it (one question may go to several numbers).
      surface: { channel: this.name, recipient: message.from },
      pick: {
        kind: 'read',
        read: (stored) => {
          // A tap on a quick reply quotes nothing, as a tap on any channel.
          if (code !== null && code.interactionId === stored.id && code.pick.kind !== 'page')
            return { ok: true, answer: answerOfCode(code.pick, stored) };
          const text = tied(stored) ? untagged : message.body.trim();
          return {
            ok: true,
            answer: answerFromText(stored, message.media['media_kind'] !== undefined && text === '' ? null : text),
          };
        },
      },
      answeredBy: `twilio:${message.from}`,
      params: this.personParams(message),
      // An SMS quotes nothing: reply_to only when the reply is tied to the question by its #tag or the replied id.
      replyTo: (stored) =>
        !tied(stored) || stored.delivery?.['message_sid'] === undefined
          ? null
          : {
              message_id: stored.delivery['message_sid'],
              status: stored.delivery['status'] ?? 'pending',
              text: stored.question,
            },
    });
    if (outcome.kind === 'not_found' || outcome.kind === 'wrong_surface' || outcome.kind === 'ready') {
      // No open question: a conversation turn for the route of this number, answered by SMS to the same number.
      const taken = await core.converse?.({
        channel: this.name,
        recipient: message.from,
        messageId: message.messageSid,
        text: message.body,
        replyTo: null,
        params: this.personParams(message),
        from: `twilio:${message.from}`,
      });
      return taken === true ? null : 'There is no open question to answer.';
    }
    return tell(outcome);
  }

  /**
   * STOP: nothing more reaches this number (Twilio refuses every send with 21610 until it texts START), so each of
   * its pending questions is marked failed with that code — undeliverable, its blocked caller told at once.
   */
  private async optedOut(from: string, core: ChannelCore): Promise<void> {
    for (const stored of await core.pendingFor(this.name, from)) {
      const ref = stored.delivery?.[DELIVERY_REF];
      if (ref === undefined) continue;
      await core.receipt(this.name, ref, {
        status: 'failed',
        rank: STATUS_RANK['failed'] as number,
        state: 'failed',
        error: { code: OPTED_OUT, message: twilioErrorWords(OPTED_OUT) },
      });
    }
  }

  /** The channel's params of an inbound message (channels/twilio/README.md). */
  private personParams(message: InboundMessage): Record<string, string> {
    const params: Record<string, string> = { ...message.media, from: message.from, message_sid: message.messageSid };
    if (message.profileName !== null) params['profile_name'] = message.profileName;
    if (message.buttonText !== null) params['button_text'] = message.buttonText;
    return params;
  }
}
