import { retryTransient } from './delivery-retry.js';
import { AskgateError, invalid } from './errors.js';
import type { ChannelDirectory, Clock, CoreLogger, Store } from './ports.js';
import { MessageEdits } from './surface-edits.js';
import { findSurface, sameSurface, surfaceView, surfacesOf } from './surfaces.js';
import type { StoredInteraction, StoredSurface, SurfaceTarget } from './types.js';

export interface SurfaceDeliveryDeps {
  store: Store;
  channels: ChannelDirectory;
  logger: CoreLogger;
  now: Clock;
}

/** How one surface's send went. */
export type SurfaceSend = { surface: StoredSurface; ok: true } | { surface: StoredSurface; ok: false; error: unknown };

/**
 * Sending a question to its surfaces and showing each of them the outcome (see core/surfaces.ts for the model).
 * A send that failed on the way (a reset connection, a timeout) is repeated a few times first (core/delivery-retry.ts).
 * A single-surface ask keeps its old rule: a failed send cancels the question and reaches the asker as a 502. With
 * several surfaces, a failed send is recorded on that surface (`deliveries`: failed, with the platform's code) and
 * only every surface failing cancels the question with a 502.
 */
export class SurfaceDelivery {
  /** Each message's edits in order: live counts coalesced, the outcome last (core/surface-edits.ts). */
  private readonly edits: MessageEdits;

  constructor(private readonly deps: SurfaceDeliveryDeps) {
    this.edits = new MessageEdits((key, err) =>
      deps.logger.warn({ message: key, err: reasonOf(err) }, 'edit of a question message failed'),
    );
  }

  /** Sends a freshly stored question to every surface; `stored.delivery`/`extra_surfaces` are updated in place. */
  async deliverAll(stored: StoredInteraction, callbackUrl: string): Promise<void> {
    const surfaces = surfacesOf(stored);
    if (surfaces.length === 0) return;
    const sends = await Promise.all(surfaces.map((surface) => this.send(stored, surface, callbackUrl)));
    const failed = sends.filter((s): s is Extract<SurfaceSend, { ok: false }> => !s.ok);
    if (failed.length === sends.length) {
      await this.deps.store.resolve(stored.id, {
        status: 'cancelled',
        result: null,
        resolvedAt: new Date(this.deps.now()).toISOString(),
      });
      const reasons = failed.map((f) => `"${f.surface.channel}" failed: ${reasonOf(f.error)}`).join('; ');
      const first = failed[0] as Extract<SurfaceSend, { ok: false }>;
      throw new AskgateError(
        'channel_delivery_failed',
        failed.length === 1 ? `delivery on channel ${reasons}` : `delivery failed on every surface: ${reasons}`,
        { extra: { channel: first.surface.channel, interaction_id: stored.id }, cause: first.error },
      );
    }
    for (const f of failed) await this.recordFailure(stored, f.surface, f.error);
    await this.catchUpOutcome(stored.id);
  }

  /**
   * Adds one more surface to a pending question and sends it there (an escalation): the surface is recorded first
   * (atomically, refused once the question resolved), so a reply there finds the question and its outcome edit
   * reaches it. Without the question's callback URL (only its hash is stored) a channel renders no link. Returns how
   * the send went; a failed send is recorded on the surface, never thrown.
   */
  async deliverToSurface(
    record: StoredInteraction,
    target: SurfaceTarget,
    callbackUrl = '',
  ): Promise<{ outcome: 'sent' | 'failed' | 'duplicate' | 'not_pending' | 'not_found'; error?: string }> {
    if (this.deps.channels.get(target.channel) === undefined)
      throw invalid('channel', `channel "${target.channel}" is not registered.`);
    const added = await this.deps.store.addSurface(record.id, target);
    if (added !== 'added') return { outcome: added };
    const surface: StoredSurface = { channel: target.channel, recipient: target.recipient, delivery: null };
    const current = (await this.deps.store.get(record.id)) ?? record;
    const sent = await this.send(current, surface, callbackUrl);
    if (!sent.ok) {
      await this.recordFailure(current, surface, sent.error);
      return { outcome: 'failed', error: reasonOf(sent.error) };
    }
    await this.catchUpOutcome(record.id);
    return { outcome: 'sent' };
  }

  /** After a resolution: every delivered surface shows it, its buttons removed. */
  showOutcome(record: StoredInteraction): void {
    for (const surface of this.editable(record)) {
      const channel = this.deps.channels.get(surface.channel);
      if (channel?.showOutcome === undefined) continue;
      const view = surfaceView(record, surface);
      this.edits.outcome(editKey(record.id, surface), () => channel.showOutcome?.(view) ?? Promise.resolve());
    }
  }

  /**
   * After a counted vote that left a quorum question pending: every delivered surface shows the live count, its
   * buttons kept. Ranked by the number of votes counted, so a burst coalesces and a count never goes back.
   */
  showVotes(record: StoredInteraction): void {
    if (record.status !== 'pending' || record.quorum === undefined) return;
    const rank = record.votes?.length ?? 0;
    for (const surface of this.editable(record)) {
      const channel = this.deps.channels.get(surface.channel);
      if (channel?.showVotes === undefined) continue;
      const view = surfaceView(record, surface);
      this.edits.count(editKey(record.id, surface), rank, () => channel.showVotes?.(view) ?? Promise.resolve());
    }
  }

  /** The surfaces with a message to edit: sent, and not failed. */
  private editable(record: StoredInteraction): StoredSurface[] {
    return surfacesOf(record).filter((s) => s.delivery !== null && s.delivery['receipt'] !== 'failed');
  }

  private async send(stored: StoredInteraction, surface: StoredSurface, callbackUrl: string): Promise<SurfaceSend> {
    const channel = this.deps.channels.get(surface.channel);
    if (channel === undefined)
      return { surface, ok: false, error: new Error(`channel "${surface.channel}" is not registered`) };
    try {
      const refs = await retryTransient(() => channel.deliver(surfaceView(stored, surface), callbackUrl), {
        now: this.deps.now,
        onRetry: (err, nextTry) =>
          this.deps.logger.warn(
            { interaction: stored.id, channel: surface.channel, err: reasonOf(err), try: nextTry },
            'delivery failed on the way; sending again',
          ),
      });
      await this.deps.store.setDelivery(stored.id, refs, surface);
      const own = findSurface(stored, surface);
      if (own !== undefined && sameSurface(own, surface)) own.delivery = refs;
      if (stored.channel === surface.channel && stored.recipient === surface.recipient) stored.delivery = refs;
      return { surface, ok: true };
    } catch (error) {
      return { surface, ok: false, error };
    }
  }

  /** A surface whose send failed: `deliveries` shows it failed, with the platform's code and words. */
  private async recordFailure(stored: StoredInteraction, surface: StoredSurface, error: unknown): Promise<void> {
    this.deps.logger.warn(
      { interaction: stored.id, channel: surface.channel, err: reasonOf(error) },
      'delivery to one surface failed',
    );
    await this.deps.store
      .setDelivery(stored.id, { receipt: 'failed', error_code: codeOf(error), error_message: reasonOf(error) }, surface)
      .catch(() => undefined);
  }

  /**
   * Resolved while a message was on its way (a short deadline on a paced chat, an answer on another surface): its
   * outcome edit found no message then, so it is made now, on the messages just recorded.
   */
  private async catchUpOutcome(id: string): Promise<void> {
    const current = await this.deps.store.get(id);
    if (current !== null && current.status !== 'pending') this.showOutcome(current);
  }
}

/** One message's lane: the question and the surface it was sent to. */
function editKey(id: string, surface: SurfaceTarget): string {
  return `${id} ${surface.channel} ${surface.recipient ?? ''}`;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The platform's code when the error carries one, else its kind (a channel's refused / network / invalid). */
function codeOf(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const e = err as { code?: unknown; platformCode?: unknown; kind?: unknown };
    for (const v of [e.platformCode, e.code, e.kind])
      if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return 'delivery_failed';
}
