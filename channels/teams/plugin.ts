import { BotConnector } from './client.js';
import { decodeAction, invokeAnswer, pickFor, type FormRefusal } from './invoke.js';
import { INVOKE_DEADLINE_MS } from './limits.js';
import { messageResponse } from './render.js';
import { renderOutcome, renderQuestion, renderVotes } from './render.js';
import { TeamsKeys, verify } from './verify.js';
import { parseActivity, plainText, type TeamsEvent } from './webhook.js';
import { ChannelError, DELIVERY_REF, type ChannelCore, type ChannelPlugin } from '../contract.js';
import type { ThreadRef } from '../contract.js';
import type { WebhookResponse, WebhookRoute } from '../http.js';
import { RenderLimitError } from '../limits.js';
import { webhookRoutes } from '../pipeline.js';
import { answerFromText, replyHint, tellClosed, tellNotTaken } from '../replies.js';
import type { SharedPacer } from '../shared-pacing.js';
import type { ChannelState } from '../../src/core/channel-state.js';
import type { QuestionRef } from '../../src/core/dispatcher.js';
import type { StoredInteraction } from '../../src/core/types.js';
import type { TeamsConfig } from './config.js';

export interface TeamsChannelOptions extends TeamsConfig {
  state: ChannelState;
  pacer: SharedPacer;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** Where the Bot Framework posts activities (the bot's messaging endpoint). */
export const MESSAGES_PATH = '/channels/teams/messages';
const TEAMS = 'teams';
/** How long a conversation's reference is kept after its last activity: a year, renewed by every activity. */
const REFERENCE_TTL_MS = 365 * 86_400_000;
/** How long an invoke's answer is kept for a repeat of that invoke. */
const INVOKE_TTL_MS = 3_600_000;

/** What askgate keeps of a conversation to write into it later (learned from its activities). */
export interface ConversationReference {
  serviceUrl: string;
  tenantId: string | null;
  type: string | null;
}

type Json = Record<string, unknown>;
type ActionEvent = Extract<TeamsEvent, { kind: 'action' }>;
type MessageEvent = Extract<TeamsEvent, { kind: 'message' }>;

const invokeKey = (activityId: string): string => `invoke:${activityId}`;
const deliveryRef = (conversation: string, activityId: string): string => `${conversation}:${activityId}`;

/** Who acted: the verified Entra object id approvers name, else the Bot Framework id. */
const answererOf = (event: TeamsEvent): string => `teams:${event.from.aadObjectId ?? event.from.id}`;

function personParams(event: TeamsEvent): Record<string, string> {
  const params: Record<string, string> = {
    user_id: event.from.aadObjectId ?? event.from.id,
    conversation_id: event.conversation.base,
    activity_id: event.id,
  };
  if (event.from.name !== null) params['user_name'] = event.from.name;
  if (event.conversation.tenantId !== null) params['tenant_id'] = event.conversation.tenantId;
  if (event.conversation.type !== null) params['conversation_type'] = event.conversation.type;
  return params;
}

/**
 * Microsoft Teams as a Bot Framework bot, over fetch and `jose` (README: why not the Teams SDK). Questions are posted
 * into conversations askgate has seen an activity from; taps arrive as `adaptiveCard/action` invokes answered in the
 * same HTTP response with the card to show; replies answer text questions; every delivered message is replaced by the
 * outcome.
 */
export class TeamsChannel implements ChannelPlugin {
  readonly name = TEAMS;
  readonly surface = TEAMS;
  readonly converses = true;
  readonly capabilities = {
    supportsFormDelivery: true,
    /** Reviews: approve and reject are taps, edit opens the form pre-filled, respond a card for the words. */
    supportsReview: true,
    /** A conversation askgate never heard from has no serviceUrl to post to: the ask is a 400 naming recipient. */
    recipientUnreachable: async (recipient: string): Promise<string | null> =>
      (await this.reference(recipient)) === null
        ? 'is no Teams conversation askgate has heard from; install the bot there (or message it) first.'
        : null,
  };
  readonly keys: TeamsKeys;
  readonly connector: BotConnector;

  constructor(private readonly options: TeamsChannelOptions) {
    this.keys = new TeamsKeys({
      metadataUrl: options.openIdMetadataUrl,
      ...(options.fetch === undefined ? {} : { fetch: (url: string) => (options.fetch as typeof fetch)(url) }),
    });
    this.connector = new BotConnector({
      appId: options.appId,
      appPassword: options.appPassword,
      tenantId: options.tenantId,
      loginUrl: options.loginUrl,
      pacer: options.pacer,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    });
  }

  /** The reference of a conversation askgate has seen, or null. */
  async reference(conversationId: string): Promise<ConversationReference | null> {
    const raw = await this.options.state.conversations.recall(TEAMS, conversationId);
    return raw === null ? null : (JSON.parse(raw) as ConversationReference);
  }

  private async referenceOrThrow(conversationId: string): Promise<ConversationReference> {
    const found = await this.reference(conversationId);
    if (found === null)
      throw new ChannelError(
        TEAMS,
        'invalid',
        `recipient "${conversationId}" is no Teams conversation askgate has seen; install the bot there (or message it) first.`,
      );
    return found;
  }

  async deliver(interaction: StoredInteraction): Promise<Record<string, string>> {
    const conversation = interaction.recipient ?? '';
    const reference = await this.referenceOrThrow(conversation);
    let activity: Json;
    try {
      activity = renderQuestion(interaction);
    } catch (err) {
      if (!(err instanceof RenderLimitError)) throw err;
      throw new ChannelError(TEAMS, 'invalid', err.message, null, { cause: err });
    }
    const activityId = await this.connector.send(reference.serviceUrl, conversation, activity);
    return {
      conversation_id: conversation,
      activity_id: activityId,
      message_id: activityId,
      [DELIVERY_REF]: deliveryRef(conversation, activityId),
    };
  }

  async remind(
    _interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const conversation = delivery['conversation_id'];
    const activityId = delivery['activity_id'];
    if (conversation === undefined || activityId === undefined)
      throw new ChannelError(TEAMS, 'invalid', 'the question has no delivered Teams message to reply to.');
    const reference = await this.referenceOrThrow(conversation);
    const id = await this.connector.reply(reference.serviceUrl, conversation, activityId, plain(text));
    return { conversation_id: conversation, activity_id: id };
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    await this.replace(interaction, renderOutcome(interaction));
  }

  async showVotes(interaction: StoredInteraction): Promise<void> {
    await this.replace(interaction, renderVotes(interaction));
  }

  private async replace(interaction: StoredInteraction, activity: Json): Promise<void> {
    const conversation = interaction.delivery?.['conversation_id'];
    const activityId = interaction.delivery?.['activity_id'];
    if (conversation === undefined || activityId === undefined) return;
    const reference = await this.referenceOrThrow(conversation);
    await this.connector.update(reference.serviceUrl, conversation, activityId, activity);
  }

  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    const reference = await this.referenceOrThrow(thread.recipient);
    const id =
      thread.replyToMessageId === undefined
        ? await this.connector.send(reference.serviceUrl, thread.recipient, plain(text))
        : await this.connector.reply(reference.serviceUrl, thread.recipient, thread.replyToMessageId, plain(text));
    return { conversation_id: thread.recipient, activity_id: id, message_id: id };
  }

  /**
   * The messaging endpoint through the one pipeline: the JWT check (401) → parse (400) → a message's redelivery
   * de-duplicated by activity id → `onEvent`. An invoke is de-duplicated here instead, so its repeat gets the card the
   * first one got rather than the pipeline's fixed answer.
   */
  webhooks(core: ChannelCore): WebhookRoute[] {
    return webhookRoutes<TeamsEvent>(
      {
        channel: TEAMS,
        path: MESSAGES_PATH,
        secret: this.options.appId,
        verify: (input) => verify(input, this.keys),
        parse: (rawBody) => [parseActivity(rawBody)],
        dedupeKey: (event) =>
          event.kind === 'action' ? null : `teams:activity:${event.conversation.base}:${event.id}`,
        dispatch: (event) => this.onEvent(event, core),
        ok: { status: 200, body: {} },
        ack: {
          withinMs: INVOKE_DEADLINE_MS,
          response: { status: 200, body: messageResponse('askgate is still working on that; look again in a moment.') },
        },
      },
      core,
    );
  }

  async onEvent(event: TeamsEvent, core: ChannelCore): Promise<WebhookResponse | undefined> {
    // Every verified activity says where its conversation lives now (Teams may move a conversation's serviceUrl).
    const reference: ConversationReference = {
      serviceUrl: event.serviceUrl,
      tenantId: event.conversation.tenantId,
      type: event.conversation.type,
    };
    await this.options.state.conversations.remember(
      TEAMS,
      event.conversation.base,
      JSON.stringify(reference),
      REFERENCE_TTL_MS,
    );
    switch (event.kind) {
      case 'action':
        return { status: 200, body: await this.onceAction(event, core) };
      case 'message':
        await this.onMessage(event, core);
        return undefined;
      case 'other_invoke':
        return {
          status: 200,
          body: { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: '' },
        };
      case 'conversation':
        return undefined;
    }
  }

  /** A tap, once: a repeat of the same invoke gets the card the first got, and offers nothing. */
  private async onceAction(event: ActionEvent, core: ChannelCore): Promise<Json> {
    const key = `teams:invoke:${event.id}`;
    const refs = this.options.state.conversations;
    if (!(await core.firstSeen(key))) {
      for (let i = 0; i < 40; i += 1) {
        const kept = await refs.recall(TEAMS, invokeKey(event.id));
        if (kept !== null) return JSON.parse(kept) as Json;
        // The first copy is still being answered (Teams retried early): wait for its card.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return messageResponse('That was already sent; look again in a moment.');
    }
    try {
      const response = await this.onAction(event, core);
      await refs.remember(TEAMS, invokeKey(event.id), JSON.stringify(response), INVOKE_TTL_MS);
      return response;
    } catch (err) {
      await core.forgetSeen(key).catch(() => undefined);
      throw err;
    }
  }

  private async onAction(event: ActionEvent, core: ChannelCore): Promise<Json> {
    const decoded = decodeAction(event);
    if (decoded === null) return messageResponse('This button is not one of askgate’s.');
    let refusal: FormRefusal | null = null;
    const outcome = await core.dispatch({
      question: { by: 'id', id: decoded.id },
      // The card must be the one askgate delivered for that question, in that conversation.
      surface: {
        channel: TEAMS,
        delivery: {
          conversation_id: event.conversation.base,
          ...(event.replyToId === null ? {} : { activity_id: event.replyToId }),
        },
      },
      pick: pickFor(decoded, event, (r) => {
        refusal = r;
      }),
      answeredBy: answererOf(event),
      params: personParams(event),
      replyTo: null,
    });
    return invokeAnswer(outcome, decoded, refusal, core);
  }

  /**
   * A message: a reply to a question (by the message it replies to, or the channel thread it sits in) answers it; in
   * a personal chat, a message that replies to nothing answers the person's latest pending question there. Anything
   * else is a conversation turn (a route's, when one is configured).
   */
  private async onMessage(event: MessageEvent, core: ChannelCore): Promise<void> {
    const text = plainText(event.text);
    const conversation = event.conversation.base;
    const refs: QuestionRef[] = [];
    if (event.replyToId !== null) refs.push({ by: 'delivery', ref: deliveryRef(conversation, event.replyToId) });
    if (event.conversation.threadRoot !== null)
      refs.push({ by: 'delivery', ref: deliveryRef(conversation, event.conversation.threadRoot) });
    if (refs.length === 0 && event.conversation.type === 'personal')
      refs.push({ by: 'recipient', recipients: [conversation] });
    const quoted = event.replyToId ?? event.conversation.threadRoot;
    const outcome =
      refs.length === 0
        ? ({ kind: 'not_found' } as const)
        : await core.dispatch({
            question: refs,
            surface: { channel: TEAMS, delivery: { conversation_id: conversation } },
            pick: { kind: 'read', read: (question) => ({ ok: true, answer: answerFromText(question, text) }) },
            answeredBy: answererOf(event),
            params: personParams(event),
            replyTo: (question) => ({
              message_id: question.delivery?.['activity_id'] ?? quoted ?? event.id,
              status: question.status,
              text: question.question,
            }),
          });
    if (outcome.kind === 'answered') return;
    if (outcome.kind === 'not_found') {
      await core.converse?.({
        channel: TEAMS,
        recipient: conversation,
        messageId: event.id,
        ...(event.conversation.threadRoot === null ? {} : { threadId: event.conversation.threadRoot }),
        text,
        replyTo: null,
        params: personParams(event),
        from: answererOf(event),
      });
      return;
    }
    // A late or refused reply is told so in the question's thread.
    const words =
      outcome.kind === 'refused' && outcome.refusal.code === 'invalid_answer'
        ? replyHint(outcome.question, outcome.message)
        : outcome.kind === 'ready'
          ? tellClosed('unknown')
          : tellNotTaken(outcome);
    const under = outcome.kind === 'wrong_surface' ? event.id : (quoted ?? event.id);
    const reference = await this.reference(conversation);
    if (reference !== null) await this.connector.reply(reference.serviceUrl, conversation, under, plain(words));
  }
}

const plain = (text: string): Json => ({ type: 'message', textFormat: 'plain', text });
