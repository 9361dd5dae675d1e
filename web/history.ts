/**
 * A question's history on its card (a closed <details>, opened on request). Closed, it holds what the record says
 * (who asked, where it went, by when, how it ended); opened, it loads the question's audit trail
 * (`GET /api/interactions/{id}/events`) and shows every event in order — deliveries, failed deliveries, the answer
 * with who gave it and where — with the start of the last event's hash, the value a person can compare with
 * `askgate interactions audit ID`. Every text goes in through `textContent`: names and details come from outside.
 */
import type { AuditEvent } from '../src/core/audit-event.js';
import type { InteractionRecord } from '../src/core/types.js';
import { reviewOutcomeLine } from '../forms/review-view.js';
import { el } from './controls.js';

/** Loads a question's trail; null when it cannot be read (the record's own summary then stays). */
export type TrailLoader = (id: string) => Promise<AuditEvent[] | null>;

/** A moment as the person reads it (their locale and zone), in a <time> that keeps the exact instant. */
export function moment(iso: string): HTMLTimeElement {
  const t = el('time', undefined, new Date(iso).toLocaleString());
  t.dateTime = iso;
  return t;
}

/**
 * Who answered where, in words: "Answered by ada on inbox"; for a review, what was decided, in the words of the
 * channels' outcome edits ("Approved by ada on slack", "Rejected by ada on inbox: “not on a Friday”").
 */
export function answeredText(
  record: Pick<InteractionRecord, 'answer_format' | 'result'>,
  by: string | undefined,
  surface: string | undefined,
): string {
  const on = surface === undefined ? '' : ` on ${surface}`;
  // Only a review's answer is read as a decision: a form's answer may well hold a member named "decision".
  if (record.answer_format === 'review' && by !== undefined && record.result !== null) {
    const decided = reviewOutcomeLine(record.result.answer, { who: by, where: on.trim(), plain: true });
    if (decided !== null) return decided;
  }
  return `Answered${by === undefined ? '' : ` by ${by}`}${on}`;
}

/**
 * One event in words: "Asked by ci-bot", "Delivered on slack", "Answered by ada on inbox" (a review's answer says
 * its decision: "Approved by ada on inbox"; the record holds the one answer a question takes).
 */
export function eventText(event: AuditEvent, record?: Pick<InteractionRecord, 'answer_format' | 'result'>): string {
  const on = event.surface === undefined ? '' : ` on ${event.surface}`;
  const by = event.by === undefined ? '' : ` by ${event.by}`;
  const code = event.detail?.['code'];
  switch (event.type) {
    case 'created':
      return `Asked${by}`;
    case 'delivered':
      return `Delivered${on}`;
    case 'delivery_failed':
      return `Delivery failed${on}${typeof code === 'string' ? ` (${code})` : ''}`;
    case 'answered':
      return answeredText(record ?? { answer_format: 'text', result: null }, event.by, event.surface);
    case 'expired':
      return 'Expired';
    case 'cancelled':
      return 'Withdrawn';
    case 'reminded':
      return `Reminded${on}`;
    case 'escalated':
      return `Escalated${on}`;
    case 'answer_refused':
      return `Answer refused${event.by === undefined ? '' : ` from ${event.by}`}${on}`;
    case 'vote':
      return `Vote${by}${on}`;
    case 'edited':
      return `Edited${by}`;
  }
}

/** The summary the record alone gives, shown until the trail is loaded (and when it cannot be). */
function recordList(record: InteractionRecord): HTMLOListElement {
  const list = el('ol');
  const item = (text: string, at: string): void => {
    const li = el('li', undefined, `${text} `);
    li.append(moment(at));
    list.append(li);
  };
  item(`Asked by ${record.asked_by}`, record.created_at);
  if (record.channel !== null)
    list.append(
      el(
        'li',
        undefined,
        `Delivered on ${record.channel}${record.recipient === null ? '' : ` to ${record.recipient}`}`,
      ),
    );
  if (record.result !== null)
    item(answeredText(record, record.result.answered_by, record.result.surface), record.result.answered_at);
  else if (record.status === 'pending') item('Answer by', record.deadline_at);
  else if (record.resolved_at !== null) item(record.status === 'expired' ? 'Expired' : 'Withdrawn', record.resolved_at);
  return list;
}

/** The trail: one item per event, then (while pending) the deadline; below the list, the chain's last hash. */
function trailList(record: InteractionRecord, events: readonly AuditEvent[]): HTMLDivElement {
  const box = el('div', 'card-trail');
  const list = el('ol');
  for (const event of events) {
    const li = el('li', undefined, `${eventText(event, record)} `);
    li.dataset['type'] = event.type;
    li.append(moment(event.at));
    list.append(li);
  }
  if (record.status === 'pending') {
    const li = el('li', undefined, 'Answer by ');
    li.append(moment(record.deadline_at));
    list.append(li);
  }
  const last = events.at(-1);
  if (last !== undefined) {
    const hash = el('p', 'card-trail-hash', `Audit hash ${last.hash.slice(0, 12)}…`);
    hash.title = last.hash;
    box.append(list, hash);
  } else {
    box.append(list);
  }
  return box;
}

export function renderHistory(record: InteractionRecord, loadTrail?: TrailLoader): HTMLDetailsElement {
  const details = el('details', 'card-history');
  details.append(el('summary', undefined, 'History'));
  let list: HTMLElement = recordList(record);
  details.append(list);
  if (loadTrail === undefined) return details;
  let loading = false;
  details.addEventListener('toggle', () => {
    if (!details.open || loading) return;
    loading = true;
    void loadTrail(record.id).then((events) => {
      // Loaded again on the next opening, so a reopened history shows what happened since.
      loading = false;
      if (events === null) return;
      const next = trailList(record, events);
      list.replaceWith(next);
      list = next;
    });
  });
  return details;
}
