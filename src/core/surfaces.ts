import type { StoredInteraction, StoredSurface, SurfaceTarget } from './types.js';

/**
 * The multi-surface model. A question goes to one or more surfaces (a channel and a recipient). The first surface
 * lives where a single-channel ask has always kept it — `channel`, `recipient` and `delivery` — so a plain ask's
 * stored record is as small as before; every further surface is an entry of `extra_surfaces` with its own
 * `delivery` references. Everything that needs "every surface" reads them through `surfacesOf`.
 *
 * A channel plugin sees one surface at a time: `surfaceView` gives the record as that surface sees it (its
 * `channel`, `recipient`, `delivery`), so a plugin renders, edits and matches replies exactly as it does for a
 * single-channel ask. The stores' channel lookups (`findByDelivery`, `pendingFor`) return that view too.
 *
 * To add one more surface to a pending question from outside the ask path (an escalation), call
 * `InteractionService.deliverToSurface(record, {channel, recipient})`: it records the surface (`Store.addSurface`,
 * atomic, refused once the question resolved, indexed by recipient at once), delivers the question there, stores
 * the message's references for that surface (`Store.setDelivery(id, refs, surface)`), so a reply or receipt there
 * finds the question and the outcome edit reaches it like every other surface.
 */

/** Every surface of a question, the first one first; empty for an inbox-only question. */
export function surfacesOf(
  stored: Pick<StoredInteraction, 'channel' | 'recipient' | 'delivery' | 'extra_surfaces'>,
): StoredSurface[] {
  const first: StoredSurface[] =
    stored.channel === null
      ? []
      : [{ channel: stored.channel, recipient: stored.recipient, delivery: stored.delivery }];
  return stored.extra_surfaces === undefined ? first : [...first, ...stored.extra_surfaces];
}

/** Whether two targets are the same surface (one channel, one recipient). */
export function sameSurface(a: SurfaceTarget, b: SurfaceTarget): boolean {
  return a.channel === b.channel && (a.recipient ?? null) === (b.recipient ?? null);
}

/** Whether `target` is the question's first surface (kept in `channel`/`recipient`/`delivery`). */
export function isFirstSurface(
  stored: Pick<StoredInteraction, 'channel' | 'recipient'>,
  target: SurfaceTarget,
): boolean {
  return stored.channel !== null && sameSurface({ channel: stored.channel, recipient: stored.recipient }, target);
}

/**
 * The record as one of its surfaces sees it: `channel`, `recipient` and `delivery` are that surface's; everything
 * else (status, result, votes, the other surfaces) is the question's own.
 */
export function surfaceView(stored: StoredInteraction, surface: StoredSurface): StoredInteraction {
  if (isFirstSurface(stored, surface)) return stored;
  return { ...stored, channel: surface.channel, recipient: surface.recipient, delivery: surface.delivery };
}

/** The first surface on `channel` that `match` accepts, as a view; null when none does. */
export function viewOn(
  stored: StoredInteraction,
  channel: string,
  match: (surface: StoredSurface) => boolean = () => true,
): StoredInteraction | null {
  const surface = surfacesOf(stored).find((s) => s.channel === channel && match(s));
  return surface === undefined ? null : surfaceView(stored, surface);
}

/** The surface of `stored` that is `target`, or undefined. */
export function findSurface(stored: StoredInteraction, target: SurfaceTarget): StoredSurface | undefined {
  return surfacesOf(stored).find((s) => sameSurface(s, target));
}
