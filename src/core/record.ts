import type { Delivery, DeliveryState, InteractionRecord, StoredInteraction } from './types.js';

/**
 * Entries of a stored delivery map every channel shares: `message_id` (the platform's id of the sent message),
 * `receipt` (its DeliveryState, once a receipt came), `error_code` and `error_message` (why it failed).
 */
const STATES: ReadonlySet<string> = new Set<DeliveryState>(['sent', 'delivered', 'read', 'failed']);

/** The record's `deliveries` (and `undeliverable`) from the channel's stored references; nothing when undelivered. */
export function deliveryView(
  stored: Pick<StoredInteraction, 'channel' | 'recipient' | 'delivery' | 'status'>,
): Pick<InteractionRecord, 'deliveries' | 'undeliverable'> {
  const d = stored.delivery;
  if (d === null || d === undefined || stored.channel === null) return {};
  const receipt = d['receipt'];
  const status: DeliveryState = receipt !== undefined && STATES.has(receipt) ? (receipt as DeliveryState) : 'sent';
  const delivery: Delivery = {
    channel: stored.channel,
    recipient: stored.recipient,
    message_id: d['message_id'] ?? d['ref'] ?? '',
    status,
  };
  if (status === 'failed')
    delivery.error = {
      code: d['error_code'] ?? 'unknown',
      message: d['error_message'] ?? 'the platform gave no reason',
    };
  // One chat delivery per question today: when it failed, every chat delivery has.
  return status === 'failed' && stored.status === 'pending'
    ? { deliveries: [delivery], undeliverable: true }
    : { deliveries: [delivery] };
}

/** The record as doors show it: the ticket hash, the verifier's options and channel references stay inside. */
export function toPublicRecord(stored: InteractionRecord | StoredInteraction): InteractionRecord {
  const {
    ticket_hash: _ticket,
    verifier_binding: _binding,
    delivery,
    ...record
  } = stored as Partial<StoredInteraction> & InteractionRecord;
  // An already public record (an event's) keeps its deliveries; a stored one has them drawn from its references.
  if (delivery === undefined) return record;
  const { deliveries: _stale, undeliverable: _staleFlag, ...rest } = record;
  // An undelivered question (the inbox's, the hot path's) adds nothing: no second copy of the record.
  if (delivery === null || rest.channel === null) return rest;
  return Object.assign(
    rest,
    deliveryView({ channel: rest.channel, recipient: rest.recipient, status: rest.status, delivery }),
  );
}
