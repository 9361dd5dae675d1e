import { Bot, GrammyError, HttpError } from 'grammy';
import { CALLBACK_ANSWER_TEXT_MAX, MESSAGE_TEXT_MAX, RenderLimitError } from './limits.js';
import { LocalPacer, pacingTransformer, type Pacer, type PacingOptions } from './pacing.js';
import { SharedTelegramPacer, botIdOf } from './shared-pacing.js';
import type { PacingSlots } from '../../src/core/channel-state.js';
import { answerFromText, replyHint, tellNotTaken } from '../replies.js';
import { clip, outcomeText, renderQuestion, selectKeyboard, votesText } from './render.js';
import { webhookRoutes } from '../pipeline.js';
import type { WebhookRoute } from '../http.js';
import { summarize } from '../outcome.js';
import { botApiAgent } from './transport.js';
import { verify } from './verify.js';
import {
  parseUpdate,
  type InboundEvent,
  type MessageEvent,
  type ReplyEvent,
  type TapEvent,
  type TelegramUser,
} from './webhook.js';
import { ChannelError, DELIVERY_REF, type ChannelCore, type ChannelPlugin, type ThreadRef } from '../contract.js';
import { decodeActionCode } from '../../src/core/action-code.js';
import { pickOfCode } from '../../src/core/dispatcher.js';
import type { ReplyTo, StoredInteraction } from '../../src/core/types.js';
import type { Logger } from '../../src/observability/logger.js';

export interface TelegramChannelOptions {
  botToken: string;
  /** The `secret_token` given to setWebhook; Telegram echoes it in X-Telegram-Bot-Api-Secret-Token. */
  webhookSecret: string;
  /** Bot API root. Default `https://api.telegram.org` (config: TELEGRAM_API_ROOT). */
  apiRoot: string;
  /** Outbound pacing; defaults follow Telegram's published limits (channels/telegram/limits.ts). */
  pacing?: PacingOptions;
  /**
   * The deployment's shared pacing slots (ChannelState's `pacing`, when the state is shared by every process): pace
   * across every process sending as the bot. Absent: pace in this process only.
   */
  sharedPacing?: PacingSlots | null;
  logger?: Logger;
}

export const TELEGRAM_WEBHOOK_PATH = '/channels/telegram/webhook';

/** The reference under which a delivered message is indexed: unique per bot, as message ids are per chat. */
export const messageRef = (chatId: string, messageId: string): string => `${chatId}:${messageId}`;

/** The shape summarize() reads; only `answer` matters for the tap's acknowledgement. */
const RESULT_STUB = { reply_to: null, params: null, answered_by: '', answered_at: '', surface: 'telegram' as const };

/** What a tap on a button that names no question of this chat is told. */
const NOT_OURS = 'This button no longer belongs to a question.';

const whoIs = (user: TelegramUser): string =>
  user.username !== null ? `telegram:@${user.username}` : `telegram:${user.id}`;

/**
 * Who answered, as an identity: the verified numeric user id of the signed update (`from.id`), never the
 * username, which its owner can change or give away (an approver is named `telegram:<user id>`).
 */
const answererOf = (user: TelegramUser): string => `telegram:${user.id}`;

function personParams(chatId: string | null, messageId: string | null, user: TelegramUser): Record<string, string> {
  const params: Record<string, string> = { from_id: user.id };
  if (user.username !== null) params['from_username'] = user.username;
  if (chatId !== null) params['chat_id'] = chatId;
  if (messageId !== null) params['message_id'] = messageId;
  return params;
}

/** Telegram's refusal or the network's failure, as a ChannelError that never carries the bot token. */
export function toChannelError(err: unknown): ChannelError {
  if (err instanceof GrammyError) {
    return new ChannelError(
      'telegram',
      'refused',
      `Telegram refused ${err.method}: ${err.error_code} ${err.description}`,
      err.parameters.retry_after ?? null,
      { cause: err },
    );
  }
  if (err instanceof HttpError)
    return new ChannelError('telegram', 'network', `could not reach the Telegram Bot API: ${err.message}`, null, {
      cause: err,
    });
  if (err instanceof RenderLimitError)
    return new ChannelError('telegram', 'invalid', err.message, null, { cause: err });
  return new ChannelError('telegram', 'network', err instanceof Error ? err.message : String(err), null, {
    cause: err,
  });
}

/**
 * Telegram through grammY's API client: questions become messages with inline buttons (confirm, select), a
 * ForceReply prompt (text) or a webview button (form); taps and quoting replies come back through the webhook.
 */
export class TelegramChannel implements ChannelPlugin {
  readonly name = 'telegram';
  readonly surface = 'telegram' as const;
  readonly converses = true;
  readonly capabilities = { supportsFormDelivery: true, supportsReview: true };
  readonly bot: Bot;
  private readonly pacer: Pacer;

  constructor(private readonly options: TelegramChannelOptions) {
    // Only the API client is used: updates arrive on askgate's own webhook door, verified before grammY sees them.
    // Its connections are closed when idle before the server closes them (transport.ts).
    const agent = botApiAgent(options.apiRoot);
    this.bot = new Bot(options.botToken, {
      client: { apiRoot: options.apiRoot, ...(agent === undefined ? {} : { baseFetchConfig: { agent } }) },
    });
    this.pacer =
      options.sharedPacing == null
        ? new LocalPacer(options.pacing)
        : new SharedTelegramPacer(options.sharedPacing, botIdOf(options.botToken), options.pacing);
    this.bot.api.config.use(pacingTransformer(this.pacer, options.pacing));
  }

  async stop(): Promise<void> {
    await this.pacer.close?.();
  }

  async deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>> {
    const chatId = interaction.recipient;
    if (chatId === null)
      throw new ChannelError('telegram', 'invalid', 'recipient is required: the Telegram chat id to deliver to.');
    try {
      const message = renderQuestion(interaction, chatId, callbackUrl);
      const sent = await this.bot.api.sendMessage(
        chatId,
        message.text,
        message.reply_markup === undefined ? {} : { reply_markup: message.reply_markup },
      );
      const sentChat = String(sent.chat.id);
      const messageId = String(sent.message_id);
      return { chat_id: sentChat, message_id: messageId, [DELIVERY_REF]: messageRef(sentChat, messageId) };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    const chatId = interaction.delivery?.['chat_id'];
    const messageId = interaction.delivery?.['message_id'];
    if (chatId === undefined || messageId === undefined) return;
    try {
      // An edit without reply_markup drops the inline keyboard, so the buttons go with the hint.
      await this.bot.api.editMessageText(chatId, Number(messageId), outcomeText(interaction));
    } catch (err) {
      // Telegram refuses an edit that changes nothing; the message already shows this outcome.
      if (err instanceof GrammyError && /message is not modified/i.test(err.description)) return;
      throw toChannelError(err);
    }
  }

  /** A reminder replies to the question message (reply_parameters), through the same pacing as every send. */
  async remind(
    _interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const chatId = delivery['chat_id'];
    const messageId = delivery['message_id'];
    if (chatId === undefined || messageId === undefined)
      throw new ChannelError('telegram', 'invalid', 'the question has no delivered Telegram message to reply to.');
    return this.postReply({ recipient: chatId, replyToMessageId: messageId }, text);
  }

  async showVotes(interaction: StoredInteraction): Promise<void> {
    const chatId = interaction.delivery?.['chat_id'];
    const messageId = interaction.delivery?.['message_id'];
    if (chatId === undefined || messageId === undefined) return;
    // A quorum question is a confirm: its keyboard (Yes / No) needs no callback link, so it is rendered again as is.
    const { reply_markup } = renderQuestion(interaction, chatId, '');
    try {
      await this.bot.api.editMessageText(
        chatId,
        Number(messageId),
        votesText(interaction),
        reply_markup !== undefined && 'inline_keyboard' in reply_markup ? { reply_markup } : {},
      );
    } catch (err) {
      if (err instanceof GrammyError && /message is not modified/i.test(err.description)) return;
      throw toChannelError(err);
    }
  }

  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    try {
      const sent = await this.bot.api.sendMessage(
        thread.recipient,
        clip(text, MESSAGE_TEXT_MAX),
        thread.replyToMessageId === undefined
          ? {}
          : { reply_parameters: { message_id: Number(thread.replyToMessageId), allow_sending_without_reply: true } },
      );
      return { chat_id: String(sent.chat.id), message_id: String(sent.message_id) };
    } catch (err) {
      throw toChannelError(err);
    }
  }

  webhooks(core: ChannelCore): WebhookRoute[] {
    return webhookRoutes<InboundEvent>(
      {
        channel: this.name,
        path: TELEGRAM_WEBHOOK_PATH,
        secret: this.options.webhookSecret,
        verify,
        parse: (rawBody) => [parseUpdate(rawBody)],
        // Telegram redelivers an update it thinks was not received, with the same update_id.
        dedupeKey: (event) => `telegram:update:${event.updateId}`,
        dispatch: async (event) => {
          if (event.kind === 'tap') await this.onTap(event, core);
          else if (event.kind === 'reply') await this.onReply(event, core);
          else if (event.kind === 'message') await this.converse(event, null, core);
          return undefined;
        },
        duplicate: { status: 200, body: { ok: true, duplicate: true } },
      },
      core,
    );
  }

  /** A tap on one of our buttons: a page turn, or an answer. Every tap is acknowledged, or the client spins. */
  private async onTap(event: TapEvent, core: ChannelCore): Promise<void> {
    const code = decodeActionCode(event.data);
    if (code === null) {
      await this.ack(event, NOT_OURS);
      return;
    }
    const { pick } = code;
    const outcome = await core.dispatch({
      question: { by: 'id', id: code.interactionId },
      // The question as the tapped chat's surface sees it (one question may sit in several chats).
      surface: { channel: this.name, delivery: { chat_id: event.chatId } },
      // A page turn, or a review's edit or respond (never a button here: a web_app and a reply), only looks.
      pick: pickOfCode(pick),
      answeredBy: answererOf(event.from),
      params: personParams(event.chatId, event.messageId, event.from),
      replyTo: null,
    });
    switch (outcome.kind) {
      case 'ready':
        if (pick.kind === 'page' && event.chatId !== null && event.messageId !== null) {
          await this.call(() =>
            this.bot.api.editMessageReplyMarkup(event.chatId as string, Number(event.messageId), {
              reply_markup: selectKeyboard(outcome.question, pick.page),
            }),
          );
        }
        await this.ack(event, undefined);
        return;
      case 'answered': {
        const said = summarize({
          answer_format: outcome.question.answer_format,
          result: { ...RESULT_STUB, answer: outcome.answer },
        });
        await this.ack(event, `Answer recorded: ${said}`);
        return;
      }
      case 'not_found':
      case 'wrong_surface':
        await this.ack(event, NOT_OURS);
        return;
      default:
        await this.ack(event, tellNotTaken(outcome));
    }
  }

  /** A message quoting one of our questions answers it; a reply to anything else may be a conversation turn. */
  private async onReply(event: ReplyEvent, core: ChannelCore): Promise<void> {
    const outcome = await core.dispatch({
      question: { by: 'delivery', ref: messageRef(event.chatId, event.quotedMessageId) },
      surface: { channel: this.name, delivery: { chat_id: event.chatId } },
      pick: { kind: 'read', read: (question) => ({ ok: true, answer: answerFromText(question, event.text) }) },
      answeredBy: answererOf(event.from),
      params: { ...event.media, ...personParams(event.chatId, event.messageId, event.from) },
      replyTo: (question) => ({ message_id: event.quotedMessageId, status: question.status, text: event.quotedText }),
    });
    if (outcome.kind === 'not_found') {
      // The person quoted it, so they saw it: a quoted message that is no question is `read`.
      await this.converse(event, { message_id: event.quotedMessageId, status: 'read', text: event.quotedText }, core);
      return;
    }
    // A winning reply needs no words: the question's outcome edit shows it.
    if (outcome.kind === 'answered' || outcome.kind === 'ready') return;
    const text =
      outcome.kind === 'refused' && outcome.refusal.code === 'invalid_answer'
        ? replyHint(outcome.question, outcome.message)
        : tellNotTaken(outcome);
    await this.call(() =>
      this.bot.api.sendMessage(event.chatId, clip(text, MESSAGE_TEXT_MAX), {
        reply_parameters: { message_id: Number(event.messageId), allow_sending_without_reply: true },
      }),
    );
  }

  /**
   * A message that answers no question goes to the route for its chat, if one is configured (ASKGATE_ROUTES); with
   * none it answers nothing, as before. The route's target replies into this chat, quoting this message.
   */
  private async converse(event: MessageEvent | ReplyEvent, replyTo: ReplyTo | null, core: ChannelCore): Promise<void> {
    await core.converse?.({
      channel: this.name,
      recipient: event.chatId,
      messageId: event.messageId,
      text: event.text,
      replyTo,
      params: { ...event.media, ...personParams(event.chatId, event.messageId, event.from) },
      from: whoIs(event.from),
    });
  }

  private async ack(event: TapEvent, text: string | undefined): Promise<void> {
    await this.call(() =>
      this.bot.api.answerCallbackQuery(
        event.callbackQueryId,
        text === undefined ? {} : { text: clip(text, CALLBACK_ANSWER_TEXT_MAX) },
      ),
    );
  }

  /** A courtesy call (an acknowledgement, a hint): its failure is logged, never a reason to fail the webhook. */
  private async call(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.options.logger?.warn({ channel: this.name, err: toChannelError(err).message }, 'telegram call failed');
    }
  }
}
