import { invalid } from '../core/errors.js';
import type { DeliveryReceipt, StoredInteraction } from '../core/types.js';

/**
 * Small rules both stores share, so they cannot drift apart: the pending cursor, the fixed window and the expiry
 * of a freshly created record.
 */

/** A cursor is the last sequence number a page showed; null starts at the beginning. */
export function parseCursor(cursor: string | null): number {
  if (cursor === null) return 0;
  if (!/^\d{1,15}$/.test(cursor)) throw invalid('cursor', 'cursor must be the next_cursor of a previous page.');
  return Number(cursor);
}

/** The fixed window `nowMs` falls in: its first second (epoch seconds, names the counter) and its end (epoch ms). */
export function fixedWindow(nowMs: number, windowSeconds: number): { start: number; endsAtMs: number } {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new RangeError(`windowSeconds must be a whole number of seconds >= 1, got ${windowSeconds}`);
  }
  const windowMs = windowSeconds * 1000;
  const startMs = Math.floor(nowMs / windowMs) * windowMs;
  return { start: startMs / 1000, endsAtMs: startMs + windowMs };
}

/** Whole seconds until a window ends, clamped to 1..window so a caller never waits zero or longer than a window. */
export function resetIn(msLeft: number, windowSeconds: number): number {
  return Math.min(Math.max(Math.ceil(msLeft / 1000), 1), windowSeconds);
}

/**
 * When a pending record is dropped if nothing resolves it: the idle TTL after its deadline (a safety net; the
 * expiry worker normally resolves it at the deadline). A deadline already past counts from now, so the record is
 * never gone the moment it is written.
 */
export function pendingExpiresAt(deadlineMs: number, nowMs: number, idleTtlMs: number): number {
  return Math.max(deadlineMs, nowMs) + idleTtlMs;
}

/**
 * A receipt applied to a stored delivery map, or null when it changes nothing: forward only by `rank` (the stored
 * `status_rank`), `failed` final. The Redis store's `delivery-receipt` script applies the same rule in Lua.
 */
export function applyReceipt(
  delivery: Readonly<Record<string, string>>,
  receipt: DeliveryReceipt,
): Record<string, string> | null {
  if (delivery['receipt'] === 'failed') return null;
  if (receipt.rank <= Number(delivery['status_rank'] ?? '0')) return null;
  const next: Record<string, string> = {
    ...delivery,
    status: receipt.status,
    status_rank: String(receipt.rank),
    receipt: receipt.state,
  };
  if (receipt.at !== undefined) next['status_at'] = receipt.at;
  if (receipt.error !== undefined) {
    next['error_code'] = receipt.error.code;
    next['error_message'] = receipt.error.message;
  }
  return next;
}

/**
 * Whether the votes of a quorum question, the one just cast (`answer`) included, decide it: yes votes reaching
 * `quorum.approve`, or no votes reaching `quorum.reject`. Only the side of the vote just cast can have crossed its
 * threshold, so the deciding vote's answer is the outcome. The Redis store's vote step counts the same way in Lua.
 */
export function quorumReached(record: Pick<StoredInteraction, 'votes' | 'quorum'>, answer: boolean): boolean {
  if (record.quorum === undefined) return true;
  const count = (record.votes ?? []).filter((v) => v.answer === answer).length;
  return count >= (answer ? record.quorum.approve : record.quorum.reject);
}
