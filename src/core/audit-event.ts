/**
 * The audit trail's event shapes, apart from the hashing in audit.ts so the browser pages can import them (this
 * file needs nothing from Node).
 */

export const AUDIT_EVENT_TYPES = [
  'created',
  'delivered',
  'delivery_failed',
  'reminded',
  'escalated',
  'answer_refused',
  'vote',
  'answered',
  'expired',
  'cancelled',
  'edited',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** An event as the doors show it. Optional members that do not apply are absent (and absent from the hash). */
export interface AuditEvent {
  /** 1 for `created`, then one more per event, without gaps. */
  seq: number;
  /** RFC 3339 moment of the event. */
  at: string;
  type: AuditEventType;
  /** Where it happened: a channel name, `inbox`, `callback`, `api`. */
  surface?: string;
  /** Who caused it: a token identity or `<channel>:<user id>`. */
  by?: string;
  detail?: Record<string, unknown>;
  hash: string;
}

/** What a transition appends: the store gives it its `seq`, its `at` (when absent) and, later, its `hash`. */
export interface NewAuditEvent {
  type: AuditEventType;
  /** Epoch ms; the store's clock when absent. */
  atMs?: number;
  surface?: string;
  by?: string;
  detail?: Record<string, unknown>;
}
