/**
 * The web inbox: pending questions, oldest first, kept live over the stream, each answerable in place.
 *
 * The token arrives in the URL fragment (`/inbox#token=…`, never sent to a server), is kept in sessionStorage for
 * this tab and wiped from the address bar at once. Without one the page asks for it.
 */
import type { InteractionRecord } from '../src/core/types.js';
import { Api } from './api.js';
import { elementLookup, takeToken } from './session.js';
import type { AuditEvent } from '../src/core/audit-event.js';
import { age, answerSummary, refusedOutcome, renderCard, type AnswerOutcome } from './card.js';
import { renderHistory } from './history.js';
import { reviewOutcomeLine } from '../forms/review-view.js';
import { openStream, type StreamHandle } from './sse.js';

const TOKEN_KEY = 'askgate.token';
const PAGE_LIMIT = 200;
/** How long a note ("You answered Yes.", "Already answered elsewhere.") stays before its card goes. */
const NOTE_MS = 2_500;

/** How a question ended, as the stream told it: who answered, where, and what; or that it expired or was withdrawn. */
function outcomeNote(record: InteractionRecord): string {
  if (record.status === 'expired') return 'Expired before anyone answered.';
  if (record.status === 'cancelled') return 'Withdrawn by its asker.';
  const result = record.result;
  if (result === null) return 'Answered.';
  const decided = reviewOutcomeLine(result.answer, {
    who: result.answered_by,
    where: `on ${result.surface}`,
    plain: true,
  });
  // A line ending in the person's quoted words takes no full stop after the quote.
  if (decided !== null) return decided.endsWith('”') ? decided : `${decided}.`;
  return `Answered by ${result.answered_by} on ${result.surface}: ${answerSummary(record, result.answer)}.`;
}

const byId = elementLookup('inbox');

class Inbox {
  private readonly cards = new Map<string, HTMLLIElement>();
  private readonly list = byId<HTMLOListElement>('cards');
  private readonly empty = byId<HTMLElement>('empty');
  private readonly count = byId<HTMLElement>('count');
  private readonly live = byId<HTMLElement>('live');
  private readonly api: Api;
  private stream: StreamHandle | null = null;
  private ageTimer: number | undefined;
  /** Stream events that arrive while the list is loading, replayed after it so nothing is lost or resurrected. */
  private pending: Array<[string, string]> | null = null;

  constructor(
    token: string,
    private readonly signOut: (message: string) => void,
  ) {
    this.api = new Api(token, () => this.stop('That token was refused. Sign in again.'));
  }

  start(): void {
    this.pending = [];
    this.stream = openStream('/api/interactions/stream', this.api.authorization, {
      onOpen: (reconnected) => {
        this.setLive('Live', true);
        if (reconnected) void this.resync();
      },
      onEvent: (type, data) => {
        if (this.pending !== null) this.pending.push([type, data]);
        else this.onEvent(type, data);
      },
      onDown: (ms) => this.setLive(`Reconnecting in ${Math.ceil(ms / 1000)} s…`, false),
      onRefused: (status) =>
        this.stop(
          status === 401
            ? 'That token was refused. Sign in again.'
            : 'This token cannot read the inbox (it needs the read scope).',
        ),
    });
    void this.resync();
    this.ageTimer = window.setInterval(() => this.refreshAges(), 30_000);
  }

  private stop(message: string): void {
    this.stream?.close();
    window.clearInterval(this.ageTimer);
    this.signOut(message);
  }

  private setLive(text: string, up: boolean): void {
    this.live.textContent = text;
    this.live.classList.toggle('up', up);
  }

  /** Reads every pending question (the stream is tail-only) and makes the cards match. */
  private async resync(): Promise<void> {
    if (this.pending === null) this.pending = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ status: 'pending', limit: String(PAGE_LIMIT) });
      if (cursor !== null) query.set('cursor', cursor);
      const page = await this.api.request<{ items: InteractionRecord[]; next_cursor: string | null }>(
        'GET',
        `/api/interactions?${query}`,
      );
      if (!page.ok) {
        if (page.status !== 401) this.showNotice(`Could not load the questions: ${page.error.message}`);
        this.pending = null;
        return;
      }
      for (const record of page.body.items) {
        seen.add(record.id);
        this.add(record);
      }
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    for (const id of [...this.cards.keys()]) if (!seen.has(id)) this.remove(id);
    const buffered = this.pending ?? [];
    this.pending = null;
    for (const [type, data] of buffered) this.onEvent(type, data);
    this.showNotice(null);
    this.updateCount();
  }

  private onEvent(type: string, data: string): void {
    let record: InteractionRecord;
    try {
      record = JSON.parse(data) as InteractionRecord;
    } catch {
      return;
    }
    if (type === 'interaction.created') {
      this.add(record);
    } else if (type === 'interaction.answered' || type === 'interaction.expired' || type === 'interaction.cancelled') {
      // Say how it ended before the card goes, unless this page already says so (its own answer's note); its
      // history now ends with that outcome.
      this.cards
        .get(record.id)
        ?.querySelector('.card-history')
        ?.replaceWith(renderHistory(record, (id) => this.loadTrail(id)));
      this.done(record.id, outcomeNote(record), true);
    }
    this.updateCount();
  }

  /** Adds a card in created order: the list is oldest first, and a live question is usually the newest. */
  private add(record: InteractionRecord): void {
    // Questions for the calling run (to: "caller") are not a person's to answer.
    if (this.cards.has(record.id) || record.status !== 'pending' || record.to === 'caller') return;
    const card = renderCard(record, {
      answer: (id, value) => this.answer(id, value),
      done: (id, note) => this.done(id, note),
      loadTrail: (id) => this.loadTrail(id),
    });
    card.dataset['created'] = record.created_at;
    let before: HTMLLIElement | null = null;
    for (const other of this.cards.values()) {
      if (
        (other.dataset['created'] ?? '') > record.created_at &&
        (before === null || (other.dataset['created'] ?? '') < (before.dataset['created'] ?? ''))
      ) {
        before = other;
      }
    }
    this.list.insertBefore(card, before);
    this.cards.set(record.id, card);
    this.updateCount();
  }

  /** A question's audit trail for its history; null when it cannot be read (the history keeps its summary). */
  private async loadTrail(id: string): Promise<AuditEvent[] | null> {
    const res = await this.api.request<{ items: AuditEvent[] }>(
      'GET',
      `/api/interactions/${encodeURIComponent(id)}/events`,
    );
    return res.ok ? res.body.items : null;
  }

  private remove(id: string): void {
    const card = this.cards.get(id);
    if (card === undefined) return;
    card.remove();
    this.cards.delete(id);
    this.updateCount();
  }

  private done(id: string, note?: string, unlessClosed = false): void {
    const card = this.cards.get(id);
    if (card === undefined || (unlessClosed && card.classList.contains('closed'))) return;
    if (note === undefined) {
      this.remove(id);
      return;
    }
    const slot = card.querySelector('.card-note');
    if (slot !== null) slot.textContent = note;
    card.classList.add('closed');
    // The card stays a moment to show its note, but it no longer waits: the count drops now, not when it goes.
    this.updateCount();
    for (const control of card.querySelectorAll<
      HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement
    >('button, input, textarea, select')) {
      control.disabled = true;
    }
    window.setTimeout(() => this.remove(id), NOTE_MS);
  }

  private async answer(id: string, value: unknown): Promise<AnswerOutcome> {
    // Named, so the answer is recorded as the inbox's (the answer door records a bare API call as `api`).
    const res = await this.api.request<{ status?: string }>(
      'POST',
      `/api/interactions/${encodeURIComponent(id)}/answer`,
      { answer: value },
      { 'X-Askgate-Client': 'inbox' },
    );
    if (res.ok) return res.body.status === 'already_answered' ? { kind: 'already_answered' } : { kind: 'answered' };
    switch (res.status) {
      case 400:
        return refusedOutcome(res.error);
      case 404:
        return { kind: 'gone', message: 'This question no longer exists.' };
      case 410:
        return { kind: 'gone', message: 'This question has closed (expired or cancelled).' };
      case 403:
        return { kind: 'error', message: 'This token may not answer (it needs the answer scope).' };
      default:
        return { kind: 'error', message: res.error.message };
    }
  }

  private refreshAges(): void {
    for (const time of this.list.querySelectorAll<HTMLTimeElement>('time.card-age'))
      time.textContent = age(time.dateTime);
  }

  private updateCount(): void {
    let n = 0;
    for (const card of this.cards.values()) if (!card.classList.contains('closed')) n += 1;
    this.count.textContent = n === 0 ? '' : `${n} waiting`;
    this.empty.hidden = this.cards.size > 0 || this.pending !== null;
  }

  private showNotice(message: string | null): void {
    const notice = byId<HTMLElement>('notice');
    notice.textContent = message ?? '';
    notice.hidden = message === null;
  }
}

function boot(): void {
  const signin = byId<HTMLFormElement>('signin');
  const notice = byId<HTMLElement>('notice');
  const live = byId<HTMLElement>('live');

  const showSignIn = (message: string | null): void => {
    sessionStorage.removeItem(TOKEN_KEY);
    signin.hidden = false;
    live.textContent = '';
    notice.textContent = message ?? '';
    notice.hidden = message === null;
    byId<HTMLOListElement>('cards').replaceChildren();
    byId<HTMLElement>('count').textContent = '';
    byId<HTMLElement>('empty').hidden = true;
    byId<HTMLInputElement>('signin-token').focus();
  };

  const open = (token: string): void => {
    signin.hidden = true;
    notice.hidden = true;
    new Inbox(token, showSignIn).start();
  };

  signin.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = byId<HTMLInputElement>('signin-token').value.trim();
    if (token === '') return;
    sessionStorage.setItem(TOKEN_KEY, token);
    byId<HTMLInputElement>('signin-token').value = '';
    open(token);
  });

  const token = takeToken(TOKEN_KEY);
  if (token === null) showSignIn(null);
  else open(token);
}

boot();
