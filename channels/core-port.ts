import type { ChannelCore, ConversationTurn } from './contract.js';
import type { ActionLinkMaker } from '../src/core/action-links.js';
import type { EventDedupe } from '../src/core/channel-state.js';
import { InboundDispatcher } from '../src/core/dispatcher.js';
import type { EventHub } from '../src/core/event-hub.js';
import type { InteractionService } from '../src/core/interaction-service.js';
import type { Store } from '../src/core/ports.js';

/** How long a platform update id is remembered for de-duplication (Telegram retries for far less). */
const SEEN_WINDOW_SECONDS = 3600;

/**
 * The gateway's implementation of the port channels talk to the core through. Every answer goes through the core's
 * inbound dispatcher, which turns the core's refusals into plain outcomes, so a channel tells the person instead of
 * failing the webhook (a platform would retry it).
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
  const dispatcher = new InboundDispatcher({
    get: (id) => store.get(id),
    findByDelivery: (channel, ref) => store.findByDelivery(channel, ref),
    pendingFor: (channel, recipients) => store.pendingFor(channel, recipients),
    offer: (offer) => service.offerAnswer(offer),
  });
  return {
    actionLinks,
    ...(converse === undefined ? {} : { converse }),
    // Taps, replies and submitted forms of every channel: one dispatcher, one set of checks (src/core/dispatcher.ts).
    dispatch: (action) => dispatcher.dispatch(action),
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
    async recordRefused(id, surface, by) {
      await store.appendEvent(id, { type: 'answer_refused', surface, by });
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
