import { randomUUID } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { askedOn, byAsked, chatItem } from './chat-items.js';
import type { ChatMessage, ConversationLog } from './conversation-log.js';
import { LINK_RECIPIENT_MAX, mintLinkToken, verifyLinkToken } from './link-token.js';
import { CHAT_PAGE } from './page.js';
import type { QuestionLog } from './question-log.js';
import {
  ChannelError,
  DELIVERY_REF,
  type ChannelCore,
  type ChannelPlugin,
  type DispatchOutcome,
  type InboundAction,
  type Pick,
  type ReadAnswer,
  type ThreadRef,
} from '../contract.js';
import type { WebhookRoute } from '../http.js';
import { answerFromText, tellNotTaken } from '../replies.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { sendAppPage } from '../../src/pages/app-page.js';

export interface WebChatOptions {
  /** Signs link tokens; every process of one deployment must share it. */
  secret: string;
  /** Guards the link-minting door (`POST /api/channels/web/links`): the gateway's `write` scope. */
  requireWrite?: RequestHandler;
  /** Prefix of minted links, e.g. INTERACTIONS_PUBLIC_BASE_URL; null: the links are relative. */
  publicBaseUrl?: string | null;
  /**
   * Where conversations (the person's messages and the replies posted into them) are kept: the ChannelState's chat
   * logs (ChatLogConversations), shared by every process when the state is.
   */
  conversations: ConversationLog;
  /** Which questions each recipient was shown (ChatLogQuestions), so a reload shows the ended ones too. */
  questions: QuestionLog;
}

/** The longest message a person may type into the chat. */
const MESSAGE_MAX = 4000;

export type { ChatItem } from './chat-items.js';

/** Comment lines keep idle proxies from closing the chat's event stream. */
const HEARTBEAT_MS = 15_000;

declare module 'express-serve-static-core' {
  interface Request {
    /** The web chat recipient a link token signed in as. */
    chatRecipient?: string;
  }
}

/**
 * The `web` channel: a chat page at /chat for a person signed in with a link token. Questions asked with
 * `channel: "web"` and their `recipient` appear there; buttons, text and forms are answered inline (the form is the
 * same schema-driven widget, with the same shape checks and words, as the callback page), and every answer goes
 * through the core like any other. The page listens on its own event stream (`/chat/api/events`); nothing goes out to
a platform, so no webhook or outbound call can fail.
 */
export class WebChatChannel implements ChannelPlugin {
  readonly name = 'web';
  readonly surface = 'web' as const;
  readonly converses = true;
  readonly capabilities = { supportsFormDelivery: true, supportsReview: true };
  private readonly conversations: ConversationLog;

  constructor(private readonly options: WebChatOptions) {
    this.conversations = options.conversations;
  }

  /** The link a person opens to chat as `recipient` (the token rides in the fragment, never sent to a server). */
  link(recipient: string): { token: string; url: string } {
    const token = mintLinkToken(this.options.secret, recipient);
    return { token, url: `${this.options.publicBaseUrl ?? ''}/chat#token=${token}` };
  }

  async deliver(interaction: StoredInteraction): Promise<Record<string, string>> {
    // "Delivery" is being listed on the recipient's page; without a recipient nobody could ever see it.
    if (interaction.recipient === null)
      throw new ChannelError(
        'web',
        'invalid',
        'recipient is required: the web chat recipient to show the question to.',
      );
    await this.options.questions.shown(interaction.recipient, interaction.id);
    return { recipient: interaction.recipient, [DELIVERY_REF]: interaction.id };
  }

  /** A reminder is a message in the recipient's conversation that replies to the question. */
  async remind(
    interaction: StoredInteraction,
    delivery: Readonly<Record<string, string>>,
    text: string,
  ): Promise<Record<string, string>> {
    const recipient = delivery['recipient'];
    if (recipient === undefined)
      throw new ChannelError('web', 'invalid', 'the question has no web chat recipient to remind.');
    return this.postReply({ recipient, replyToMessageId: interaction.id }, text);
  }

  /** A reply into the recipient's conversation (a route's answer to a message typed on the page). */
  async postReply(thread: ThreadRef, text: string): Promise<Record<string, string>> {
    const message: ChatMessage = {
      id: randomUUID(),
      from: 'askgate',
      text,
      reply_to: thread.replyToMessageId ?? null,
      at: new Date().toISOString(),
    };
    await this.conversations.append(thread.recipient, message);
    return { recipient: thread.recipient, message_id: message.id };
  }

  /** The page hears the outcome on its event stream; there is no message to edit. */
  async showOutcome(): Promise<void> {}

  /** No platform calls in: the page talks to askgate itself. */
  webhooks(): WebhookRoute[] {
    return [];
  }

  /**
   * The chat page and the API it calls, as express routes (the ChannelPlugin interface's optional capability): unlike a webhook,
   * these are a browser's doors — the page shell, JSON bodies, bearer link tokens and the gateway's `write` guard
   * for minting links — which express already serves for every other page of the gateway.
   */
  router(core: ChannelCore): Router {
    const router = Router();
    const body = express.json({ limit: '1mb', strict: false });

    router.get('/chat', (_req, res) => sendAppPage(res, CHAT_PAGE));

    if (this.options.requireWrite !== undefined) {
      router.post('/api/channels/web/links', this.options.requireWrite, body, (req, res) => {
        const recipient = (req.body as { recipient?: unknown } | undefined)?.recipient;
        if (typeof recipient !== 'string' || recipient === '' || recipient.length > LINK_RECIPIENT_MAX) {
          res.status(400).json({
            error: 'invalid_request',
            message: `recipient must be a string of 1..${LINK_RECIPIENT_MAX} characters.`,
            field: 'recipient',
          });
          return;
        }
        res.status(201).json({ recipient, ...this.link(recipient) });
      });
    }

    router.use('/chat/api', (req: Request, res: Response, next: NextFunction) => {
      const header = req.headers.authorization;
      const recipient = verifyLinkToken(
        this.options.secret,
        header?.startsWith('Bearer ') ? header.slice(7) : undefined,
      );
      if (recipient === null) {
        res.status(401).json({
          error: 'unauthorized',
          message: 'the chat link token is missing or not valid; open the link you were given again.',
        });
        return;
      }
      req.chatRecipient = recipient;
      next();
    });

    const mine = async (req: Request, res: Response): Promise<StoredInteraction | null> => {
      const stored = await core.get(req.params['id'] as string);
      if (stored === null || !askedOn(stored, this.name, req.chatRecipient as string)) {
        res.status(404).json({ error: 'not_found', message: 'no such question in this chat.' });
        return null;
      }
      return stored;
    };

    // takes_messages: whether a message that answers no question can go anywhere (a route is configured); the page
    // shows its composer only then.
    router.get('/chat/api/me', (req, res) => {
      res.json({ recipient: req.chatRecipient, takes_messages: core.converse !== undefined });
    });

    // The page's live feed (Server-Sent Events, tail only): `question` — one of this recipient's web questions was
    // asked or ended, data the chat item — and `message` — a message joined the conversation. The page reads the
    // questions and the conversation once after each (re)connect, then only listens.
    router.get('/chat/api/events', (req, res) => {
      const recipient = req.chatRecipient as string;
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache, no-transform');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      res.write(': connected\n\n');
      const send = (type: string, data: unknown): void => {
        res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const unwatch = core.watch((record) => {
        if (askedOn(record, this.name, recipient)) send('question', chatItem(record, recipient));
      });
      const unsubscribe = this.conversations.subscribe((to, message) => {
        if (to === recipient) send('message', message);
      });
      const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      req.on('close', () => {
        clearInterval(heartbeat);
        unwatch();
        unsubscribe();
      });
    });

    router.get('/chat/api/messages', async (req, res) => {
      // A fast reply may be appended before the message it answers (the message is kept once a route took it).
      const items = await this.conversations.read(req.chatRecipient as string);
      res.json({ items: items.sort((a, b) => a.at.localeCompare(b.at)) });
    });

    // A message that answers no question: a conversation turn for the route of this recipient (ASKGATE_ROUTES).
    router.post('/chat/api/messages', body, async (req, res) => {
      const text = (req.body as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.trim() === '' || text.length > MESSAGE_MAX) {
        res.status(400).json({
          error: 'invalid_request',
          message: `send {"text": "<your message>"}, 1..${MESSAGE_MAX} characters.`,
          field: 'text',
        });
        return;
      }
      const recipient = req.chatRecipient as string;
      const message: ChatMessage = {
        id: randomUUID(),
        from: 'person',
        text,
        reply_to: null,
        at: new Date().toISOString(),
      };
      const taken = await core.converse?.({
        channel: this.name,
        recipient,
        messageId: message.id,
        text,
        replyTo: null,
        params: { recipient },
        from: `web:${recipient}`,
      });
      if (taken !== true) {
        // Nobody takes messages here: the person is told, and nothing is kept.
        res.status(422).json({
          error: 'no_conversation',
          message: 'This chat takes no messages of its own: answer each question above with its own controls.',
          field: 'text',
        });
        return;
      }
      await this.conversations.append(recipient, message);
      res.status(202).json(message);
    });

    // The pending questions and the ended ones this chat showed (its question log), oldest first: a reload shows
    // what the page showed before it, each ended question with its outcome line.
    router.get('/chat/api/questions', async (req, res) => {
      const recipient = req.chatRecipient as string;
      const [pending, shown] = await Promise.all([
        core.pendingFor(this.name, recipient),
        this.options.questions.read(recipient),
      ]);
      const found = new Map(pending.map((r) => [r.id, r]));
      const ended = await Promise.all(shown.filter((id) => !found.has(id)).map((id) => core.get(id)));
      for (const r of ended) if (r !== null && askedOn(r, this.name, recipient)) found.set(r.id, r);
      res.json({ items: [...found.values()].sort(byAsked).map((r) => chatItem(r, recipient)) });
    });

    router.get('/chat/api/questions/:id', async (req, res) => {
      const stored = await mine(req, res);
      if (stored !== null) res.json(chatItem(stored, req.chatRecipient as string));
    });

    // An answer from the page: the question must be this recipient's on the web chat, and still open.
    const answer = async (req: Request, res: Response, pick: Pick, replyTo: InboundAction['replyTo']) => {
      const recipient = req.chatRecipient as string;
      this.send(
        res,
        await core.dispatch({
          question: { by: 'id', id: req.params['id'] as string },
          surface: { channel: this.name, recipient },
          pick,
          answeredBy: `web:${recipient}`,
          params: null,
          replyTo,
        }),
      );
    };

    router.post('/chat/api/questions/:id/answer', body, async (req, res) => {
      const payload = req.body as { answer?: unknown } | undefined;
      const sent = payload !== undefined && payload !== null && typeof payload === 'object' && 'answer' in payload;
      await answer(
        req,
        res,
        {
          kind: 'read',
          read: () => (sent ? { ok: true, answer: payload.answer } : malformed('answer', 'send {"answer": <value>}.')),
        },
        null,
      );
    });

    // A typed message that quotes the question: read like a chat reply ("yes", a choice's name or number).
    router.post('/chat/api/questions/:id/reply', body, async (req, res) => {
      const text = (req.body as { text?: unknown } | undefined)?.text;
      await answer(
        req,
        res,
        {
          kind: 'read',
          read: (question) =>
            typeof text === 'string'
              ? { ok: true, answer: answerFromText(question, text) }
              : malformed('text', 'send {"text": "<your reply>"}.'),
        },
        (question) => ({ message_id: question.id, status: question.status, text: question.question }),
      );
    });
    return router;
  }

  /** The HTTP answer of a dispatched answer (docs: channels/web/README.md). */
  private send(res: Response, outcome: DispatchOutcome): void {
    switch (outcome.kind) {
      case 'answered':
      case 'voted':
        res.json({ status: outcome.kind });
        return;
      case 'ready':
        res.json({ status: 'pending' });
        return;
      case 'not_found':
      case 'wrong_surface':
        res.status(404).json({ error: 'not_found', message: 'no such question in this chat.' });
        return;
      case 'closed':
        if (outcome.status === 'answered') {
          res.json({ status: 'already_answered' });
          return;
        }
        res.status(410).json({
          error: 'gone',
          message:
            outcome.status === 'cancelled' ? 'this question was cancelled by its asker.' : 'this question has expired.',
          status: outcome.status,
        });
        return;
      case 'refused': {
        const { code, field } = outcome.refusal;
        if (code === 'not_an_approver') {
          res.status(403).json({ error: 'not_an_approver', message: tellNotTaken(outcome) });
          return;
        }
        if (code === 'callback_only') {
          res.status(403).json({ error: 'callback_only', message: outcome.message });
          return;
        }
        // As the answer door: every violation in `errors`, so the page shows each under its own field.
        res.status(400).json({
          error: code === 'invalid_request' ? 'invalid_request' : 'invalid_answer',
          message: outcome.message,
          ...(field === null ? {} : { field }),
          ...(outcome.violations === undefined ? {} : { errors: outcome.violations }),
        });
      }
    }
  }
}

/** A request body the page should not have sent: a 400 naming the field. */
function malformed(field: string, message: string): ReadAnswer {
  return { ok: false, refusal: { code: 'invalid_request', field, reason: message }, message };
}
