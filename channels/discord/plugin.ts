import { DiscordClient } from './client.js';
import { CALLBACK, CONTENT_MAX, EPHEMERAL_FLAG, clip } from './limits.js';
import {
  formModal,
  formRefusal,
  readFormModal,
  RESPOND_MODAL,
  textModal,
  TEXT_INPUT_ID,
  type FormReading,
} from './modal.js';
import { renderOutcome, renderQuestion, renderVotes } from './render.js';
import { verify } from './verify.js';
import {
  decodeControlId,
  dedupeKeyOf,
  parseInteraction,
  type ControlId,
  type DiscordEvent,
  type DiscordUser,
} from './webhook.js';
import { ChannelError, DELIVERY_REF, type ChannelCore, type ChannelPlugin, type Pick } from '../contract.js';
import type { WebhookResponse, WebhookRoute } from '../http.js';
import { webhookRoutes } from '../pipeline.js';
import { tellClosed, tellNotTaken } from '../replies.js';
import type { Schema } from '../../forms/fields.js';
import { editPrefill } from '../../src/core/review-view.js';
import type { StoredInteraction } from '../../src/core/types.js';

export interface DiscordChannelOptions {
  botToken: string;
  /** The application's Ed25519 public key (hex), from the Developer Portal. */
  publicKey: string;
  applicationId: string;
  /** API root without the version, default `https://discord.com/api` (config: DISCORD_API_URL). */
  apiUrl: string;
}

/** Where Discord posts interactions (the application's Interactions Endpoint URL). */
export const INTERACTIONS_PATH = '/channels/discord/interactions';

/** The interaction response body askgate answers an interaction with (Discord's interaction callback). */
export type InteractionResponse = Record<string, unknown>;

/** The surface of answers given on Discord: the channel's name, as every channel's. */
const DISCORD_SURFACE = 'discord';

/** The reference a delivered message is indexed under: a message id within its channel. */
export const messageRef = (channelId: string, messageId: string): string => `${channelId}:${messageId}`;

const ephemeral = (text: string): InteractionResponse => ({
  type: CALLBACK.CHANNEL_MESSAGE_WITH_SOURCE,
  data: { content: clip(text, CONTENT_MAX), flags: EPHEMERAL_FLAG, allowed_mentions: { parse: [] } },
});
/** Acknowledges a click or a submission without changing the message: the outcome edit follows the answer. */
const ACKNOWLEDGED: InteractionResponse = { type: CALLBACK.DEFERRED_UPDATE_MESSAGE };
/** The HTTP answer of an interaction askgate has already acted on: acknowledged, changing nothing. */
const ALREADY_ACTED: WebhookResponse = { status: 200, body: ACKNOWLEDGED };

/** Who acted, as the `params` of the answer. */
function personParams(
  user: DiscordUser | null,
  event: Extract<DiscordEvent, { customId: string }>,
): Record<string, string> {
  const params: Record<string, string> = { interaction_id: event.id };
  if (user !== null) {
    params['user_id'] = user.id;
    if (user.username !== null) params['user_name'] = user.username;
    if (user.globalName !== null) params['display_name'] = user.globalName;
  }
  const channelId = event.channelId ?? event.message?.channelId ?? null;
  if (channelId !== null) params['channel_id'] = channelId;
  if (event.guildId !== null) params['guild_id'] = event.guildId;
  if (event.message !== null) params['message_id'] = event.message.id;
  return params;
}

/**
 * Discord through its HTTP interactions and REST API (@discordjs/rest): questions become messages with buttons or
 * string selects; text answers and forms are typed into modals opened by a button. Every answer arrives as a signed
 * interaction at `POST /channels/discord/interactions`; askgate answers it in the HTTP response (a modal, an
 * acknowledgement, or an ephemeral note to the person), and the outcome edit follows over REST.
 */
export class DiscordChannel implements ChannelPlugin {
  readonly name = 'discord';
  readonly surface = DISCORD_SURFACE;
  readonly capabilities = {
    supportsFormDelivery: true,
    supportsReview: true,
    /**
     * Why a form schema cannot be a Discord modal (the property and the reason); null when it can. The core asks this
     * while checking an ask, so such a question is a 400 naming the property and nothing is stored; `deliver` keeps
     * the same check as a second lock.
     */
    formRefusal: (schema: Schema) => formRefusal(schema),
  };
  readonly client: DiscordClient;

  constructor(private readonly options: DiscordChannelOptions) {
    this.client = new DiscordClient({ botToken: options.botToken, apiUrl: options.apiUrl });
  }

  async deliver(interaction: StoredInteraction): Promise<Record<string, string>> {
    const target = /^(user:)?(\d{1,24})$/.exec(interaction.recipient ?? '');
    if (target === null)
      throw new ChannelError(
        'discord',
        'invalid',
        'recipient must be a Discord channel id the bot can post in, or user:<user id> for a direct message.',
      );
    const snowflake = target[2] as string;
    if (interaction.answer_format === 'form') {
      const refusal = formRefusal(interaction.schema ?? {});
      if (refusal !== null)
        throw new ChannelError(
          'discord',
          'invalid',
          `schema property "${refusal.property}" cannot be delivered on discord: ${refusal.reason}.`,
        );
    }
    let body: ReturnType<typeof renderQuestion>;
    try {
      body = renderQuestion(interaction);
    } catch (err) {
      throw new ChannelError('discord', 'invalid', err instanceof Error ? err.message : String(err), null, {
        cause: err,
      });
    }
    // A direct message goes into the bot's DM channel with the user (the person must share a server with the bot).
    const channelId = target[1] === undefined ? snowflake : await this.client.openDm(snowflake);
    const sent = await this.client.createMessage(channelId, body);
    return { channel_id: sent.channelId, message_id: sent.id, [DELIVERY_REF]: messageRef(sent.channelId, sent.id) };
  }

  /** A reminder is a Discord reply (message_reference) to the question message, in its channel. */
  async remind(
    _interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const channelId = delivery['channel_id'];
    const messageId = delivery['message_id'];
    if (channelId === undefined || messageId === undefined)
      throw new ChannelError('discord', 'invalid', 'the question has no delivered Discord message to reply to.');
    const sent = await this.client.createMessage(channelId, { content: clip(text, CONTENT_MAX) }, messageId);
    return { channel_id: sent.channelId, message_id: sent.id };
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    const channelId = interaction.delivery?.['channel_id'];
    const messageId = interaction.delivery?.['message_id'];
    if (channelId === undefined || messageId === undefined) return;
    await this.client.editMessage(channelId, messageId, renderOutcome(interaction));
  }

  async showVotes(interaction: StoredInteraction): Promise<void> {
    const channelId = interaction.delivery?.['channel_id'];
    const messageId = interaction.delivery?.['message_id'];
    if (channelId === undefined || messageId === undefined) return;
    await this.client.editMessage(channelId, messageId, renderVotes(interaction));
  }

  /**
   * The Interactions Endpoint through the one pipeline: Ed25519 verify (401) → parse (400) → dedupe on Discord's
   * interaction id → `handle`, whose interaction response (a PING's `{type: 1}`, a modal, an acknowledgement, an
   * ephemeral note) is the HTTP answer.
   */
  webhooks(core: ChannelCore): WebhookRoute[] {
    return webhookRoutes<DiscordEvent>(
      {
        channel: this.name,
        path: INTERACTIONS_PATH,
        secret: this.options.publicKey,
        verify,
        parse: (rawBody) => [parseInteraction(rawBody)],
        dedupeKey: dedupeKeyOf,
        dispatch: async (event) => ({ status: 200, body: await this.handle(event, core) }),
        // Every dispatch answers; only a copy of an interaction already acted on reaches the pipeline's default.
        duplicate: ALREADY_ACTED,
      },
      core,
    );
  }

  stop(): Promise<void> {
    this.client.rest.clearHashSweeper();
    this.client.rest.clearHandlerSweeper();
    return Promise.resolve();
  }

  /** One verified interaction → the response Discord shows. Never throws for a refused answer. */
  async handle(event: DiscordEvent, core: ChannelCore): Promise<InteractionResponse> {
    if (event.kind === 'ping') return { type: CALLBACK.PONG };
    if (event.kind === 'ignored') return ephemeral('askgate has no commands; answer its questions with their buttons.');
    if (event.applicationId !== null && event.applicationId !== this.options.applicationId)
      return ephemeral('This interaction is for another application.');
    const control = decodeControlId(event.customId);
    // A component of another feature of the same application: acknowledged, left alone.
    if (control === null) return ACKNOWLEDGED;
    const message = event.message;
    let readRefused = false;
    const outcome = await core.dispatch({
      question: { by: 'id', id: control.interactionId },
      // The control must sit on a message askgate delivered for that question (a modal submission carries it too); a
      // question on several Discord surfaces is seen as the surface of that message.
      surface: { channel: this.name, delivery: message === null ? {} : { message_id: message.id } },
      pick: pickOf(control, event, () => {
        readRefused = true;
      }),
      // The verified user id of the signed interaction, never the changeable username (approvers: discord:<id>).
      answeredBy: `discord:${event.user?.id ?? 'unknown'}`,
      params: personParams(event.user, event),
      replyTo: (question) => ({
        message_id: question.delivery?.['message_id'] ?? message?.id ?? '',
        status: question.status,
        text: question.question,
      }),
    });
    switch (outcome.kind) {
      case 'ready':
        return { type: CALLBACK.MODAL, data: modalFor(control, outcome.question) };
      case 'answered':
        return ACKNOWLEDGED;
      case 'refused':
        if (readRefused || outcome.refusal.code !== 'invalid_answer') break;
        if (control.action === 'choice' || control.action === 'menu')
          return ephemeral('That choice is not one of this question’s.');
        if (control.action === 'form_modal')
          return ephemeral(`That does not fill the form: ${outcome.message} Press “Open form” to try again.`);
        if (control.action === 'edit_modal')
          return ephemeral(`Those arguments were not taken: ${outcome.message} Press “Edit” to try again.`);
        break;
    }
    return ephemeral(tellNotTaken(outcome));
  }
}

/** The modal a button opens on a question still open: the form, the review's edit (pre-filled), or one text input. */
function modalFor(control: ControlId, question: StoredInteraction): Record<string, unknown> {
  if (control.action === 'form') return formModal(question);
  if (control.action === 'edit' && question.action !== undefined) {
    // Pre-filled with the proposed arguments the schema names; submitted as edit_modal.
    const initial = editPrefill(question.schema, question.action.args);
    return formModal(question, { initial, title: `Edit ${question.action.name}`, action: 'edit_modal' });
  }
  if (control.action === 'respond') return textModal(question, RESPOND_MODAL);
  return textModal(question);
}

/** What a control means: a modal to open (`look`), a button's answer, or what a submitted modal holds. */
function pickOf(control: ControlId, event: Extract<DiscordEvent, { customId: string }>, refused: () => void): Pick {
  switch (control.action) {
    case 'answer':
    case 'form':
    case 'edit':
    case 'respond':
      return { kind: 'look' };
    case 'approve':
    case 'reject':
      return { kind: 'review', decision: control.action };
    case 'respond_modal':
      return {
        kind: 'review',
        decision: 'respond',
        message: event.kind === 'modal' ? (event.fields.get(TEXT_INPUT_ID) ?? '') : '',
      };
    case 'edit_modal':
      return {
        kind: 'read',
        read: (question) => {
          const read =
            event.kind !== 'modal' || question.schema === null ? null : readFormModal(question.schema, event.fields);
          if (read?.ok === true) return { ok: true, answer: { decision: 'edit', args: read.answer } };
          refused();
          const message =
            read === null ? tellClosed('unknown') : `${read.label}: ${read.error} Press “Edit” to try again.`;
          return {
            ok: false,
            refusal: {
              code: 'invalid_answer',
              field: read === null ? null : `args.${read.name}`,
              reason: read?.error ?? message,
            },
            message,
          };
        },
      };
    case 'yes':
    case 'no':
      return { kind: 'confirm', value: control.action === 'yes' };
    case 'choice':
      return { kind: 'choice', index: control.n };
    case 'menu': {
      const index = Number(event.kind === 'component' ? event.values[0] : Number.NaN);
      return Number.isInteger(index) ? { kind: 'choice', index } : { kind: 'answer', answer: undefined };
    }
    case 'text_modal':
      return { kind: 'answer', answer: event.kind === 'modal' ? (event.fields.get(TEXT_INPUT_ID) ?? '') : undefined };
    case 'form_modal':
      return {
        kind: 'read',
        read: (question) => {
          const read: FormReading | null =
            event.kind !== 'modal' || question.schema === null ? null : readFormModal(question.schema, event.fields);
          if (read?.ok === true) return { ok: true, answer: read.answer };
          refused();
          const message =
            read === null ? tellClosed('unknown') : `${read.label}: ${read.error} Press “Open form” to try again.`;
          return {
            ok: false,
            refusal: {
              code: 'invalid_answer',
              field: read === null ? null : read.label,
              reason: read?.error ?? message,
            },
            message,
          };
        },
      };
  }
}
