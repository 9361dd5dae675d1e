import {
  App,
  LogLevel,
  webApi,
  type AllMiddlewareArgs,
  type BlockAction,
  type SlackActionMiddlewareArgs,
  type ViewSubmitAction,
} from '@slack/bolt';
import {
  interactionIdOfBlock,
  readTap,
  outcomeLine,
  renderOutcome,
  renderQuestion,
  renderVotes,
  BLOCK_PREFIX,
  QUESTION_ACTION,
} from './blocks.js';
import { MESSAGE_TEXT_MAX, clip } from './limits.js';
import { FORM_CALLBACK_ID } from './modal.js';
import { answerSubmission, rebuildOnFieldChange, viewOf } from './modal-answers.js';
import { renderReview, renderReviewOutcome } from './review.js';
import { SlackPacer } from './pacing.js';
import { SlackReceiver } from './receiver.js';
import { answerFromText, replyHint } from './replies.js';
import { tellNotTaken } from '../replies.js';
import { filesParams } from './webhook.js';
import type { WebhookRoute } from '../http.js';
import { ChannelError, DELIVERY_REF, type ChannelCore, type ChannelPlugin, type ThreadRef } from '../contract.js';
import type { StoredInteraction } from '../../src/core/types.js';
import {
  FORM_DID_NOT_OPEN,
  closedView,
  messageRef,
  personParams,
  str,
  toChannelError,
  whoIs,
  type Json,
  type SlackChannelOptions,
  webClientOptions,
} from './pieces.js';

export type { SlackChannelOptions } from './pieces.js';

// Imported from here by the channel's other modules and tests.
export { FORM_DID_NOT_OPEN, messageRef, toChannelError } from './pieces.js';

/**
 * Slack through Bolt and the Web API: questions become Block Kit messages (Yes/No buttons, choice buttons or a
 * static_select, an "Open form" button that opens a modal, or a "reply in this thread" prompt); taps, modal
 * submissions and thread replies come back through Bolt listeners behind askgate's own verified doors.
 */
export class SlackChannel implements ChannelPlugin {
  readonly name = 'slack';
  readonly surface = 'slack' as const;
  readonly converses = true;
  readonly capabilities = { supportsFormDelivery: true, supportsReview: true };
  readonly client: webApi.WebClient;
  private readonly app: App;
  private readonly receiver: SlackReceiver;
  private readonly pacer: SlackPacer;
  private identity: Promise<{ botId: string; botUserId: string }> | null = null;
  private listening = false;

  constructor(private readonly options: SlackChannelOptions) {
    const clientOptions = webClientOptions(options.apiUrl);
    this.client = new webApi.WebClient(options.botToken, clientOptions);
    this.pacer = new SlackPacer(options.pacing);
    this.receiver = new SlackReceiver({
      signingSecret: options.signingSecret,
      nowSeconds: options.nowSeconds,
      logger: options.logger,
    });
    this.app = new App({
      receiver: this.receiver,
      // auth.test once per process, lazily and retried after a failure, so a gateway starts without Slack reachable
      // (Bolt's own token verification calls it at construction and would leave a rejected promise behind).
      authorize: () => this.whoAmI().then((me) => ({ botToken: options.botToken, ...me })),
      clientOptions,
      convoStore: false,
      logLevel: LogLevel.ERROR,
    });
    this.app.error(async (error) => {
      options.logger?.warn({ channel: 'slack', err: error.message }, 'slack listener failed');
    });
  }

  private whoAmI(): Promise<{ botId: string; botUserId: string }> {
    if (this.identity === null) {
      this.identity = this.call('auth.test', null, () => this.client.auth.test()).then((r) => ({
        botId: r.bot_id ?? '',
        botUserId: r.user_id ?? '',
      }));
      this.identity.catch(() => {
        this.identity = null;
      });
    }
    return this.identity;
  }

  /** One paced Web API call, its failure as a ChannelError. */
  private async call<T>(method: string, channel: string | null, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.pacer.run(method, channel, fn);
    } catch (err) {
      throw toChannelError(method, err);
    }
  }

  /** A courtesy call (a hint, an ephemeral note): its failure is logged, never a reason to fail the request. */
  private async courtesy(method: string, channel: string | null, fn: () => Promise<unknown>): Promise<void> {
    try {
      await this.call(method, channel, fn);
    } catch (err) {
      this.options.logger?.warn(
        { channel: this.name, method, err: err instanceof Error ? err.message : String(err) },
        'slack call failed',
      );
    }
  }

  async deliver(interaction: StoredInteraction): Promise<Record<string, string>> {
    const recipient = interaction.recipient;
    if (recipient === null)
      throw new ChannelError(
        'slack',
        'invalid',
        'recipient is required: the Slack channel id (C…) or user id (U…, for a DM) to deliver to.',
      );
    let message: ReturnType<typeof renderQuestion>;
    try {
      message = interaction.answer_format === 'review' ? renderReview(interaction) : renderQuestion(interaction);
    } catch (err) {
      throw toChannelError('chat.postMessage', err);
    }
    const sent = await this.call('chat.postMessage', recipient, () =>
      this.client.chat.postMessage({
        channel: recipient,
        text: message.text,
        blocks: message.blocks as unknown as webApi.KnownBlock[],
      }),
    );
    // A user id posts into the app's DM with that user; the answer names the conversation it really went to.
    const channel = sent.channel ?? recipient;
    const ts = sent.ts ?? '';
    return { channel, ts, message_id: ts, [DELIVERY_REF]: messageRef(channel, ts) };
  }

  async showOutcome(interaction: StoredInteraction): Promise<void> {
    // An update without actions blocks removes the buttons along with the hint; a review keeps its action in view.
    const message =
      interaction.answer_format === 'review'
        ? renderReviewOutcome(interaction, outcomeLine(interaction))
        : renderOutcome(interaction);
    await this.updateQuestion(interaction, message);
  }

  /** A reminder is a reply in the question message's thread (thread_ts), paced like every Slack call. */
  async remind(
    _interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const channel = delivery['channel'];
    const ts = delivery['ts'];
    if (channel === undefined || ts === undefined)
      throw new ChannelError('slack', 'invalid', 'the question has no delivered Slack message to reply to.');
    return this.postReply({ recipient: channel, replyToMessageId: ts }, text);
  }

  async showVotes(interaction: StoredInteraction): Promise<void> {
    // The actions block is kept: voting goes on.
    await this.updateQuestion(interaction, renderVotes(interaction));
  }

  /** Rewrites the delivered question message (chat.update, paced); a no-op for an undelivered one. */
  private async updateQuestion(interaction: StoredInteraction, message: { text: string; blocks: unknown[] }) {
    const channel = interaction.delivery?.['channel'];
    const ts = interaction.delivery?.['ts'];
    if (channel === undefined || ts === undefined) return;
    await this.call('chat.update', channel, () =>
      this.client.chat.update({
        channel,
        ts,
        text: message.text,
        blocks: message.blocks as unknown as webApi.KnownBlock[],
      }),
    );
  }

  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    const sent = await this.call('chat.postMessage', thread.recipient, () =>
      this.client.chat.postMessage({
        channel: thread.recipient,
        text: clip(text, MESSAGE_TEXT_MAX),
        ...(thread.replyToMessageId === undefined ? {} : { thread_ts: thread.replyToMessageId }),
      }),
    );
    return { channel: sent.channel ?? thread.recipient, ts: sent.ts ?? '' };
  }

  /** The two doors; Bolt's listeners are bound to `core` here, so the gateway builds them once. */
  webhooks(core: ChannelCore): WebhookRoute[] {
    if (this.listening) throw new Error('the Slack webhooks are built once per channel: Bolt would answer twice');
    this.listening = true;
    this.app.action<BlockAction>({ block_id: new RegExp(`^${BLOCK_PREFIX}`), action_id: QUESTION_ACTION }, (args) =>
      this.onTap(args, core),
    );
    this.app.action<BlockAction>({ block_id: /^f:/ }, (args) =>
      rebuildOnFieldChange(args, core, (request) =>
        this.courtesy('views.update', null, () => this.client.views.update(request)),
      ),
    );
    this.app.view<ViewSubmitAction>({ callback_id: FORM_CALLBACK_ID, type: 'view_submission' }, (args) =>
      answerSubmission(args, core),
    );
    this.app.event('message', ({ event }) => this.onMessage(event as unknown as Json, core));
    return this.receiver.webhooks(core);
  }

  /** A tap on a question's control. Acknowledged first: for "Open form", views.open must follow inside 3 s. */
  private async onTap(
    { ack, body, action }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs,
    core: ChannelCore,
  ): Promise<void> {
    await ack();
    const selected = action.type === 'static_select' ? (action.selected_option?.value ?? null) : null;
    const tap = readTap(action.action_id, selected);
    const interactionId = interactionIdOfBlock(action.block_id);
    const channel = body.channel?.id ?? null;
    const ts = body.message?.ts ?? body.container?.message_ts ?? null;
    const user = body.user as unknown as Json;
    if (tap === null || interactionId === null) return;
    const tapped = {
      question: { by: 'id', id: interactionId },
      // The tap must come from the message the question was delivered as (its conversation and ts).
      surface: { channel: this.name, delivery: { channel, ts } },
      answeredBy: whoIs(str(user['id'])),
      params: personParams(user, channel, ts),
      replyTo: null,
    } as const;
    const opens = tap.kind === 'open_form' || (tap.kind === 'review' && tap.decision === 'edit');
    if (opens) {
      const outcome = await core.dispatch({ ...tapped, pick: { kind: 'look' } });
      // Opened right away, never queued: the trigger_id expires 3 s after the tap.
      const view =
        outcome.kind === 'ready'
          ? viewOf(outcome.question, { interactionId, channel, ts })
          : closedView(outcome.kind === 'closed' ? outcome.status : 'unknown');
      try {
        await this.call('views.open', null, () =>
          this.client.views.open({ trigger_id: body.trigger_id, view: view as unknown as webApi.View }),
        );
      } catch (err) {
        // A trigger that expired (the tap waited too long) or was used already: the question is untouched, and the
        // person, who saw nothing open, is told to tap again (a new tap brings a new trigger).
        this.options.logger?.warn(
          { channel: this.name, method: 'views.open', err: err instanceof Error ? err.message : String(err) },
          'slack form did not open',
        );
        if (channel !== null) await this.ephemeral(channel, str(user['id']), FORM_DID_NOT_OPEN);
      }
      return;
    }
    const pick =
      tap.kind === 'confirm' || tap.kind === 'review' ? tap : ({ kind: 'choice', index: tap.index } as const);
    const outcome = await core.dispatch({ ...tapped, pick });
    // A winning tap needs no words: the outcome edit replaces the buttons. Anyone else is told, to them alone; a tap
    // that names no question of this message changes nothing and is told nothing.
    if (outcome.kind === 'answered' || outcome.kind === 'ready' || outcome.kind === 'not_found') return;
    if (outcome.kind === 'wrong_surface' || channel === null) return;
    await this.ephemeral(channel, str(user['id']), tellNotTaken(outcome));
  }

  /**
   * A reply in a question's thread answers it; any other message a person writes (in a channel, a DM or another
   * thread) may be a conversation turn for the route of its channel (ASKGATE_ROUTES), answered in its thread.
   */
  private async onMessage(event: Json, core: ChannelCore): Promise<void> {
    const subtype = str(event['subtype']);
    // Our own posts (and other bots'), edits and deletions come back as message events too.
    if (
      event['bot_id'] !== undefined ||
      (subtype !== null && subtype !== 'file_share' && subtype !== 'thread_broadcast')
    )
      return;
    const channel = str(event['channel']);
    const threadTs = str(event['thread_ts']);
    const ts = str(event['ts']);
    const userId = str(event['user']);
    if (channel === null || ts === null) return;
    const text = str(event['text']) ?? '';
    const params: Record<string, string> = {
      ...filesParams(event['files']),
      ...personParams(userId === null ? null : { id: userId, team_id: event['team'] }, channel, ts),
      ...(threadTs === null ? {} : { thread_ts: threadTs }),
    };
    const inThread = threadTs !== null && threadTs !== ts;
    const outcome = inThread
      ? await core.dispatch({
          question: { by: 'delivery', ref: messageRef(channel, threadTs) },
          surface: { channel: this.name, delivery: { channel } },
          pick: { kind: 'read', read: (question) => ({ ok: true, answer: answerFromText(question, text) }) },
          answeredBy: whoIs(userId),
          params,
          replyTo: (question) => ({ message_id: threadTs, status: question.status, text: question.question }),
        })
      : ({ kind: 'not_found' } as const);
    if (outcome.kind === 'not_found') {
      // A thread root or a message in a thread of ours that is no question: the reply goes into that thread.
      await core.converse?.({
        channel: this.name,
        recipient: channel,
        messageId: ts,
        ...(inThread ? { threadId: threadTs } : {}),
        text,
        replyTo: null,
        params,
        from: whoIs(userId),
      });
      return;
    }
    if (outcome.kind === 'answered' || outcome.kind === 'ready' || outcome.kind === 'wrong_surface') return;
    const hint =
      outcome.kind === 'refused' && outcome.refusal.code === 'invalid_answer'
        ? replyHint(outcome.question, outcome.message)
        : tellNotTaken(outcome);
    await this.courtesy('chat.postMessage', channel, () =>
      this.client.chat.postMessage({ channel, thread_ts: threadTs as string, text: clip(hint, MESSAGE_TEXT_MAX) }),
    );
  }

  private async ephemeral(channel: string, user: string | null, text: string): Promise<void> {
    if (user === null) return;
    await this.courtesy('chat.postEphemeral', channel, () =>
      this.client.chat.postEphemeral({ channel, user, text: clip(text, MESSAGE_TEXT_MAX) }),
    );
  }
}
