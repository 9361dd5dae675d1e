import { surfacesOf } from './surfaces.js';
import type { Delivery, DeliveryState, InteractionRecord, StoredInteraction, StoredSurface } from './types.js';

/**
 * Entries of a stored delivery map every channel shares: `message_id` (the platform's id of the sent message),
 * `receipt` (its DeliveryState, once a receipt came), `error_code` and `error_message` (why it failed).
 */
const STATES: ReadonlySet<string> = new Set<DeliveryState>(['sent', 'delivered', 'read', 'failed']);

/** One stored surface's delivery as the record shows it. */
function deliveryOf(surface: StoredSurface & { delivery: Record<string, string> }): Delivery {
  const d = surface.delivery;
  const receipt = d['receipt'];
  const status: DeliveryState = receipt !== undefined && STATES.has(receipt) ? (receipt as DeliveryState) : 'sent';
  const delivery: Delivery = {
    channel: surface.channel,
    recipient: surface.recipient,
    message_id: d['message_id'] ?? d['ref'] ?? '',
    status,
  };
  if (status === 'failed')
    delivery.error = {
      code: d['error_code'] ?? 'unknown',
      message: d['error_message'] ?? 'the platform gave no reason',
    };
  return delivery;
}

/**
 * The record's `deliveries` (and `undeliverable`) from every surface's stored references, and `deliver` when the
 * question has more than one surface; nothing for an undelivered single-surface question.
 */
export function deliveryView(
  stored: Pick<StoredInteraction, 'channel' | 'recipient' | 'delivery' | 'status' | 'extra_surfaces'>,
): Pick<InteractionRecord, 'deliveries' | 'undeliverable' | 'deliver'> {
  const surfaces = surfacesOf(stored);
  const view: Pick<InteractionRecord, 'deliveries' | 'undeliverable' | 'deliver'> = {};
  if (surfaces.length > 1) view.deliver = surfaces.map((s) => ({ channel: s.channel, recipient: s.recipient }));
  const deliveries = surfaces
    .filter((s): s is StoredSurface & { delivery: Record<string, string> } => s.delivery !== null)
    .map(deliveryOf);
  if (deliveries.length === 0) return view;
  view.deliveries = deliveries;
  // Undeliverable once every surface was tried and every one of them failed: nobody saw it on a channel.
  if (
    stored.status === 'pending' &&
    deliveries.length === surfaces.length &&
    deliveries.every((d) => d.status === 'failed')
  )
    view.undeliverable = true;
  return view;
}

/** The record as doors show it: the ticket hash, the verifier's options and channel references stay inside. */
export function toPublicRecord(stored: InteractionRecord | StoredInteraction): InteractionRecord {
  const {
    ticket_hash: _ticket,
    verifier_binding: _binding,
    delivery,
    extra_surfaces,
    ...record
  } = stored as Partial<StoredInteraction> & InteractionRecord;
  // An already public record (an event's) keeps its deliveries; a stored one has them drawn from its references.
  if (delivery === undefined) return record;
  const { deliveries: _stale, undeliverable: _staleFlag, deliver: _staleDeliver, ...rest } = record;
  // An undelivered question (the inbox's, the hot path's) adds nothing: no second copy of the record.
  if ((delivery === null && extra_surfaces === undefined) || rest.channel === null) return rest;
  return Object.assign(
    rest,
    deliveryView({ channel: rest.channel, recipient: rest.recipient, status: rest.status, delivery, extra_surfaces }),
  );
}
