import type { InteractionRecord, StoredInteraction } from './types.js';

/** The record as doors show it: the ticket hash, the verifier's options and channel references stay inside. */
export function toPublicRecord(stored: InteractionRecord | StoredInteraction): InteractionRecord {
  const {
    ticket_hash: _ticket,
    verifier_binding: _binding,
    delivery: _delivery,
    ...record
  } = stored as Partial<StoredInteraction> & InteractionRecord;
  return record;
}
