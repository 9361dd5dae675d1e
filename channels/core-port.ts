import type { ChannelCore, ConversationTurn, OfferOutcome } from './contract.js';
import type { ActionLinkMaker } from '../src/core/action-links.js';
import type { EventDedupe } from '../src/core/channel-state.js';
import { AskgateError } from '../src/core/errors.js';
import type { EventHub } from '../src/core/event-hub.js';
import type { InteractionService } from '../src/core/interaction-service.js';
import type { Store } from '../src/core/ports.js';

/** How long a platform update id is remembered for de-duplication (Telegram retries for far less). */
const SEEN_WINDOW_SECONDS = 3600;

/**
 * The gateway's implementation of the port channels talk to the core through. It turns the core's thrown refusals
 * into plain outcomes, so a channel tells the person instead of failing the webhook (a platform would retry it).
 */
export function channelCore(
  service: InteractionService,
  store: Store,
  hub: EventHub,
  /** The channel state's de-duplication of platform event ids. */
  dedupe: EventDedupe,
  /** The routes' turn taker (src/runs/conversations.ts); absent when no route is configured. */
  converse?: (turn: ConversationTurn) => Promise<boolean>,
  /** The link maker (null: the gateway makes no action links). */
  actionLinks: ActionLinkMaker | null = null,
): ChannelCore {
  return {
    actionLinks,
    ...(converse === undefined ? {} : { converse }),
    async offer(offer): Promise<OfferOutcome> {
      try {
        return { kind: await service.offerAnswer(offer) };
      } catch (err) {
        if (!(err instanceof AskgateError)) throw err;
        if (err.code === 'invalid_answer') {
          const { field, reason } = err.refusal;
          return field === null
            ? { kind: 'invalid', message: err.message, reason }
            : { kind: 'invalid', message: err.message, field, reason };
        }
        if (err.code === 'gone')
          return { kind: 'closed', status: err.extra['status'] === 'cancelled' ? 'cancelled' : 'expired' };
        if (err.code === 'not_found') return { kind: 'closed', status: 'unknown' };
        if (err.code === 'not_an_approver') return { kind: 'not_an_approver' };
        throw err;
      }
    },
    get: (id) => store.get(id),
    findByDelivery: (channel, ref) => store.findByDelivery(channel, ref),
    pendingFor: (channel, recipient) =>
      // The store's recipient index: a person's questions without a pass over the pending list.
      store.pendingFor(channel, typeof recipient === 'string' ? [recipient] : recipient),
    async receipt(channel, ref, receipt) {
      // The index only names the question; the receipt itself is applied in one atomic step on the record.
      const stored = await store.findByDelivery(channel, ref);
      if (stored === null) return { outcome: 'unknown', id: null };
      return { outcome: await store.recordReceipt(stored.id, ref, receipt), id: stored.id };
    },
    async redeliver(channel, ref, entries) {
      const stored = await store.findByDelivery(channel, ref);
      // A whole new delivery: its own ref is indexed, so a reply quoting the new message finds the question.
      if (stored !== null && stored.status === 'pending') await store.setDelivery(stored.id, entries);
    },
    // One claim per key for an hour from its first sight, whatever window boundary a retry crosses.
    firstSeen: (key) => dedupe.firstSeen(key, SEEN_WINDOW_SECONDS * 1000),
    forgetSeen: (key) => dedupe.forget(key),
    watch: (listener) => hub.listen((event) => listener(event.record)),
  };
}
