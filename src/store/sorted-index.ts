/**
 * An ordered set of ids by numeric score (ties broken by insertion order), for the in-memory store's pending list
 * and deadline index. A sorted array with binary search: inserts and removals move memory, but the embedded store
 * serves one process and the operations it needs (range after a score, pop the lowest) stay logarithmic to find.
 */
export class SortedIndex {
  private readonly entries: Array<{ score: number; tie: number; id: string }> = [];
  private readonly byId = new Map<string, { score: number; tie: number }>();
  private ties = 0;

  get size(): number {
    return this.entries.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  add(id: string, score: number): void {
    this.remove(id);
    const entry = { score, tie: this.ties++, id };
    this.entries.splice(this.lowerBound(score, entry.tie), 0, entry);
    this.byId.set(id, { score, tie: entry.tie });
  }

  remove(id: string): boolean {
    const key = this.byId.get(id);
    if (key === undefined) return false;
    this.byId.delete(id);
    this.entries.splice(this.lowerBound(key.score, key.tie), 1);
    return true;
  }

  /** Up to `limit` entries whose score is strictly greater than `after`, lowest first. */
  after(after: number, limit: number): Array<{ id: string; score: number }> {
    const start = this.lowerBound(after, Number.POSITIVE_INFINITY);
    return this.entries.slice(start, start + limit).map(({ id, score }) => ({ id, score }));
  }

  /** Removes and returns up to `max` ids whose score is at or below `upTo`, lowest first. */
  popUpTo(upTo: number, max: number): string[] {
    const end = Math.min(this.lowerBound(upTo, Number.POSITIVE_INFINITY), max);
    const popped = this.entries.splice(0, Math.max(end, 0));
    for (const entry of popped) this.byId.delete(entry.id);
    return popped.map((entry) => entry.id);
  }

  /** The first position whose (score, tie) is not below the given pair. */
  private lowerBound(score: number, tie: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.entries[mid]!;
      if (e.score < score || (e.score === score && e.tie < tie)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
