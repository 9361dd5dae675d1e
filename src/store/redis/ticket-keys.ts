import { isLegacyTicketHash } from '../../core/ids.js';
import type { Keys } from '../keys.js';

/**
 * The `t:` lookup a record's ticket gets: only an old-form ticket hash (64 hex, minted before tickets named their
 * record) has one; a new ticket (`<secret>.<id>`) is found by its id, so null. A store keeps writing the lookup for
 * an old-form hash it is given, so records written by a process of the previous version stay findable.
 */
export function legacyTicketKey(keys: Keys, ticketHash: string | null): string | null {
  return ticketHash !== null && isLegacyTicketHash(ticketHash) ? keys.ticket(ticketHash) : null;
}
