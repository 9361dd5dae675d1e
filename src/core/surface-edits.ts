/**
 * The edits of one question message, in order. A quorum question's message is edited after every counted vote
 * (the live count) and once more with the outcome; votes can arrive in a burst, and each edit goes through the
 * channel's pacing, so edits of one message are queued here: one runs at a time, a newer count replaces a count
 * still waiting (the last count wins), a count lower than or equal to one already queued or shown is dropped, and
 * the outcome is final: it replaces any waiting count and nothing is shown after it. This is per process: votes
 * are counted in the store, and two gateway processes each order only their own edits (docs/surfaces.md).
 */

/** Finished lanes kept so a late count for an ended question is still recognised and dropped. */
const LANES_MAX = 10_000;

interface Lane {
  running: boolean;
  next: (() => Promise<void>) | null;
  /** The highest rank queued or shown so far. */
  rank: number;
  /** The outcome was queued: nothing after it. */
  final: boolean;
}

export class MessageEdits {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly onError: (key: string, err: unknown) => void) {}

  /** A live count of rank `rank` (the number of votes it shows); dropped unless it is newer than every earlier one. */
  count(key: string, rank: number, edit: () => Promise<void>): void {
    const lane = this.lane(key);
    if (lane.final || rank <= lane.rank) return;
    lane.rank = rank;
    this.queue(key, lane, edit);
  }

  /** The outcome edit: replaces a waiting count, runs after the edit in flight, and closes the lane. */
  outcome(key: string, edit: () => Promise<void>): void {
    const lane = this.lane(key);
    if (lane.final) return;
    lane.final = true;
    lane.rank = Number.POSITIVE_INFINITY;
    this.queue(key, lane, edit);
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { running: false, next: null, rank: 0, final: false };
      this.lanes.set(key, lane);
      if (this.lanes.size > LANES_MAX) this.evictIdle();
    }
    return lane;
  }

  private queue(key: string, lane: Lane, edit: () => Promise<void>): void {
    lane.next = edit;
    if (!lane.running) void this.pump(key, lane);
  }

  private async pump(key: string, lane: Lane): Promise<void> {
    lane.running = true;
    while (lane.next !== null) {
      const edit = lane.next;
      lane.next = null;
      try {
        await edit();
      } catch (err) {
        this.onError(key, err);
      }
    }
    lane.running = false;
  }

  /** Drops the oldest idle lanes (a Map iterates in insertion order) down to half the bound. */
  private evictIdle(): void {
    for (const [key, lane] of this.lanes) {
      if (this.lanes.size <= LANES_MAX / 2) return;
      if (!lane.running && lane.next === null) this.lanes.delete(key);
    }
  }
}
