import { type ChatThread, type Checkpoint, type Checkpoints, ownedByAnother } from '../runs/checkpoints.js';

interface Kept {
  /** The owner, set by the first save or bind. */
  owner: string;
  checkpoint: Omit<Checkpoint, 'owner' | 'thread'> | null;
  thread: ChatThread | null;
  /** When the retention runs out, epoch ms. */
  expiresAt: number;
}

/**
 * The Checkpoints port in this process's memory: for a single process without Redis, and the reference the contract
 * suite holds the other implementations to. Values are copied in and out (JSON), as a store that serializes them
 * would, so a caller that changes a loaded checkpoint changes nothing kept. An entry past its retention is gone.
 */
export class MemoryCheckpoints implements Checkpoints {
  private readonly kept = new Map<string, Kept>();

  constructor(
    /** The checkpoint retention, ms: every write keeps the entry this long from then. */
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private live(runId: string): Kept | null {
    const entry = this.kept.get(runId);
    if (entry === undefined) return null;
    if (entry.expiresAt > this.now()) return entry;
    this.kept.delete(runId);
    return null;
  }

  async load(runId: string): Promise<Checkpoint | null> {
    const entry = this.live(runId);
    if (entry?.checkpoint == null) return null;
    return copy({ owner: entry.owner, ...entry.checkpoint, thread: entry.thread });
  }

  async save(runId: string, { owner, thread, ...checkpoint }: Checkpoint): Promise<void> {
    const entry = this.live(runId);
    if (entry !== null && entry.owner !== owner) throw ownedByAnother(runId);
    this.kept.set(runId, {
      owner,
      checkpoint: copy({ ...checkpoint, state: checkpoint.state ?? null }),
      thread: thread === null ? (entry?.thread ?? null) : copy(thread),
      expiresAt: this.now() + this.retentionMs,
    });
  }

  async bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean> {
    const entry = this.live(runId);
    if (entry !== null && entry.owner !== owner) return false;
    this.kept.set(runId, {
      owner,
      checkpoint: entry?.checkpoint ?? null,
      thread: copy(thread),
      expiresAt: this.now() + this.retentionMs,
    });
    return true;
  }
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
