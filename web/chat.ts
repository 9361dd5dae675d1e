/**
 * The web chat: the questions asked of this recipient on channel `web`, as a conversation. Each question is the
 * inbox's card (buttons, a text box, or the schema-driven form with the callback page's shape checks and words);
 * once it ends, its controls give way to the outcome line, wherever it was answered.
 *
 * The link token arrives in the fragment (`/chat#token=…`, never sent to a server), is kept in this tab only, and
 * authorises the chat's own API (`/chat/api/*`). New questions, outcomes and replies to the person's messages
 * arrive on the chat's event stream (`/chat/api/events`, Server-Sent Events over fetch): nothing is polled.
 */
import type { InteractionRecord } from '../src/core/types.js';
import { Api } from './api.js';
import { openStream, type StreamHandle } from './sse.js';
import { elementLookup, takeToken } from './session.js';
import { refusedOutcome, renderCard, type AnswerOutcome } from './card.js';

type ChatItem = InteractionRecord & { outcome: string | null };
/** A message of the conversation: the person's, or a reply posted into it. */
interface ChatMessage {
  id: string;
  from: 'person' | 'askgate';
  text: string;
  reply_to: string | null;
  at: string;
}

const TOKEN_KEY = 'askgate.chat.token';

const byId = elementLookup('chat');

class Chat {
  private readonly thread = byId<HTMLOListElement>('thread');
  private readonly notice = byId<HTMLElement>('notice');
  private readonly empty = byId<HTMLElement>('empty');
  private readonly live = byId<HTMLElement>('live');
  /** Questions on screen; `ended` once their outcome is shown. */
  private readonly shown = new Map<string, { card: HTMLLIElement; ended: boolean }>();
  /** Conversation messages on screen, by id. */
  private readonly messages = new Set<string>();
  private readonly api: Api;
  private stream: StreamHandle | null = null;

  constructor(token: string) {
    this.api = new Api(token, () => this.fail('This chat link is not valid. Open the link you were given again.'));
  }

  async start(): Promise<void> {
    const me = await this.api.request<{ recipient: string; takes_messages: boolean }>('GET', '/chat/api/me');
    if (!me.ok) return;
    byId('who').textContent = `as ${me.body.recipient}`;
    // Without a route a message could only be refused: the box shows only where messages go somewhere.
    byId<HTMLFormElement>('compose').hidden = !me.body.takes_messages;
    byId<HTMLFormElement>('compose').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.say();
    });
    this.stream = openStream('/chat/api/events', this.api.authorization, {
      // The stream is tail-only: after every (re)connect, read what is there, then only listen.
      onOpen: () => {
        this.live.textContent = 'Live';
        this.live.classList.add('up');
        void this.sync();
      },
      onEvent: (type, data) => this.onEvent(type, data),
      onDown: () => {
        this.live.textContent = 'Reconnecting…';
        this.live.classList.remove('up');
      },
      onRefused: () => this.fail('This chat link is not valid. Open the link you were given again.'),
    });
  }

  private onEvent(type: string, data: string): void {
    if (type === 'message') this.addMessage(JSON.parse(data) as ChatMessage);
    if (type !== 'question') return;
    const item = JSON.parse(data) as ChatItem;
    if (!this.shown.has(item.id)) this.add(item);
    if (item.status !== 'pending') this.end(item);
    this.empty.hidden = this.shown.size > 0 || this.messages.size > 0;
  }

  private fail(message: string): void {
    this.stream?.close();
    this.notice.textContent = message;
    this.notice.hidden = false;
    this.live.textContent = 'Signed out';
  }

  /**
   * Reads the questions (the pending ones and those this chat showed that have ended since, each with its outcome)
   * and the conversation, and makes the page match: after a reload it shows what it showed before.
   */
  private async sync(): Promise<void> {
    const page = await this.api.request<{ items: ChatItem[] }>('GET', '/chat/api/questions');
    if (!page.ok) return;
    const listed = new Set(page.body.items.map((i) => i.id));
    for (const item of page.body.items) {
      if (!this.shown.has(item.id)) this.add(item);
      if (item.status !== 'pending') this.end(item);
    }
    // A question on screen the list no longer holds (forgotten by now) may have ended somewhere: show how.
    for (const [id, entry] of this.shown) if (!entry.ended && !listed.has(id)) await this.refresh(id);
    const conversation = await this.api.request<{ items: ChatMessage[] }>('GET', '/chat/api/messages');
    if (conversation.ok) for (const m of conversation.body.items) this.addMessage(m);
    this.empty.hidden = this.shown.size > 0 || this.messages.size > 0;
  }

  /** Sends what the person typed; a route's answer comes back into the conversation. */
  private async say(): Promise<void> {
    const input = byId<HTMLInputElement>('message');
    const error = byId<HTMLElement>('compose-error');
    const text = input.value.trim();
    if (text === '') return;
    const res = await this.api.request<ChatMessage>('POST', '/chat/api/messages', { text });
    error.hidden = res.ok;
    if (!res.ok) {
      error.textContent = res.error.message;
      return;
    }
    input.value = '';
    this.addMessage(res.body);
  }

  private addMessage(message: ChatMessage): void {
    if (this.messages.has(message.id)) return;
    this.messages.add(message.id);
    const li = document.createElement('li');
    li.className = `chat-message from-${message.from}`;
    li.dataset['id'] = message.id;
    li.textContent = message.text;
    this.place(li, message.at);
    li.scrollIntoView({ block: 'nearest' });
  }

  private add(item: ChatItem): void {
    const card = renderCard(item, {
      answer: (id, value) => this.answer(id, value),
      done: (id) => void this.refresh(id),
      showChannel: false,
    });
    card.classList.add('chat-question');
    this.shown.set(item.id, { card, ended: false });
    this.place(card, item.created_at);
    card.scrollIntoView({ block: 'nearest' });
  }

  /**
   * Puts a question or a message into the thread in time order (`at`, ISO 8601): live ones land at the end, and a
   * reload, which reads the questions before the conversation, interleaves them as they were.
   */
  private place(node: HTMLLIElement, at: string): void {
    node.dataset['at'] = at;
    let after: Element | null = this.thread.lastElementChild;
    while (
      after !== null &&
      (after as HTMLElement).dataset['at'] !== undefined &&
      (after as HTMLElement).dataset['at']! > at
    )
      after = after.previousElementSibling;
    if (after === null) this.thread.prepend(node);
    else after.after(node);
  }

  private async refresh(id: string): Promise<void> {
    const res = await this.api.request<ChatItem>('GET', `/chat/api/questions/${encodeURIComponent(id)}`);
    if (res.ok) this.end(res.body);
  }

  /** A question ended (here, on another surface, by expiry or cancel): its controls give way to the outcome line. */
  private end(item: ChatItem): void {
    const entry = this.shown.get(item.id);
    if (entry === undefined || entry.ended || item.outcome === null) return;
    entry.ended = true;
    // The controls go; the outcome line takes their place, as the question message is edited on other channels.
    for (const node of entry.card.querySelectorAll('.controls, .control-error')) node.remove();
    const line = document.createElement('p');
    line.className = 'chat-outcome';
    line.setAttribute('role', 'status');
    line.textContent = item.outcome;
    // Above the history, where the inbox shows its note: what happened first, the record of it after.
    entry.card.insertBefore(line, entry.card.querySelector('.card-history'));
    entry.card.dataset['status'] = item.status;
  }

  private async answer(id: string, value: unknown): Promise<AnswerOutcome> {
    const res = await this.api.request<{ status: 'answered' | 'already_answered' }>(
      'POST',
      `/chat/api/questions/${encodeURIComponent(id)}/answer`,
      { answer: value },
    );
    if (res.ok) return { kind: res.body.status };
    if (res.status === 410 || res.status === 404) return { kind: 'gone', message: res.error.message };
    if (res.status === 400) return refusedOutcome(res.error);
    return { kind: 'error', message: res.error.message };
  }
}

const token = takeToken(TOKEN_KEY);
if (token === null) {
  const notice = byId<HTMLElement>('notice');
  notice.textContent = 'Open this page through the chat link you were given.';
  notice.hidden = false;
} else {
  void new Chat(token).start();
}
