/** The JSON body of `GET /api/interactions/{id}/events` (docs/doors.md, "Audit trail") as the SDK reads it. */

/** Every event type of the audit trail. */
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

/** One event of `{"items": [...]}`. Optional members that do not apply are absent (and absent from the hash). */
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
