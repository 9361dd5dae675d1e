import { fixedWindow, resetIn } from './common.js';
import type { FixedWindowHit, PresetVersion } from './store.js';

/**
 * The MemoryStore's operator-side state, split out by purpose (memory-store.ts holds the interaction records and
 * their indexes): the fixed-window counters of flood control, the preset versions and the seen-set. None of it
 * belongs to an interaction, so none of it is pruned with one. Methods keep the Store port's names and answers;
 * the store wraps each in its async method, so a throw here still reaches the caller as a rejection.
 */
export class MemoryOperatorState {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly presets = new Map<string, PresetVersion[]>();
  /** Seen-set claims: key → until when (epoch ms). */
  private readonly seen = new Map<string, number>();

  hitWindow(key: string, windowSeconds: number): FixedWindowHit {
    const now = Date.now();
    const window = fixedWindow(now, windowSeconds);
    const slot = `${key}:${window.start}`;
    const counter = this.windows.get(slot) ?? { count: 0, endsAt: window.endsAtMs };
    counter.count += 1;
    this.windows.set(slot, counter);
    return { count: counter.count, resetInSeconds: resetIn(counter.endsAt - now, windowSeconds) };
  }

  appendPreset(name: string, entry: Omit<PresetVersion, 'version'>): number {
    const versions = this.presets.get(name) ?? [];
    // A JSON copy, so a caller changing its object later cannot change the stored version.
    versions.push(JSON.parse(JSON.stringify({ ...entry, version: versions.length + 1 })) as PresetVersion);
    this.presets.set(name, versions);
    return versions.length;
  }

  presetVersions(name: string): PresetVersion[] {
    return JSON.parse(JSON.stringify(this.presets.get(name) ?? [])) as PresetVersion[];
  }

  markSeen(key: string, ttlMs: number): boolean {
    const now = Date.now();
    for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
    if (this.seen.has(key)) return false;
    this.seen.set(key, now + Math.max(1, ttlMs));
    return true;
  }

  unmarkSeen(key: string): void {
    this.seen.delete(key);
  }

  /** Drops the counters of windows that have ended (the store's sweep timer calls this). */
  sweep(now: number): void {
    for (const [slot, counter] of this.windows) {
      if (counter.endsAt <= now) this.windows.delete(slot);
    }
  }
}
