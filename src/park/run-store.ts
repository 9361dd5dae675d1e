import type { AskResult, RunSpec, StoredInteraction } from '../core/types.js';

/**
 * Parked runs, as the park side sees them: the types of a run and the `RunStore` port. The Redis implementation
 * (src/store/redis/run-store.ts) documents the run hash; only wiring.ts, which builds it, imports it, and nothing
 * in src/park/ imports ioredis or the record codec. `runView` reads a run from the hash's fields (the store hands
 * them back from the settling step, `SettledRun.fields`).
 */

export type RunStatus = 'parked' | 'ready' | 'dying' | 'resumed' | 'killed';

/** One ask slot of a run. */
export interface RunAsk {
  interactionId: string;
  /** pending while open; else how it ended. */
  status: 'pending' | 'answered' | 'expired' | 'cancelled';
  result: AskResult | null;
}

export interface RunView {
  runId: string;
  status: RunStatus;
  generation: number;
  owner: string;
  kind: 'tool' | 'agent';
  parentRunId: string | null;
  resume: RunSpec['resume'];
  state: unknown;
  thread: ChatThread | null;
  outstanding: number;
  asks: RunAsk[];
  killedBy: string | null;
  attempts: number;
  parkedAt: string | null;
  completedAt: string | null;
}

/** Where a run reached over chat came from: its late reply goes back there. */
export interface ChatThread {
  channel: string;
  recipient: string;
  replyToMessageId: string | null;
  route: string;
}

/**
 * How one resume webhook attempt ended: `delivered` (a 2xx), `http_error` (any other status), `refused` (the
 * outbound pin would not connect: `reason` says which address and why), `network_error` (`error` is the code:
 * ECONNREFUSED, ECONNRESET, ENOTFOUND, timeout, …). Never the URL's query, a header, or the signed body.
 */
export interface AttemptOutcome {
  /** When the attempt ended (ISO 8601). */
  at: string;
  /** The park (the run's generation) the attempt delivered. */
  park: number;
  outcome: 'delivered' | 'http_error' | 'refused' | 'network_error';
  status?: number;
  error?: string;
  reason?: string;
}

/** How many attempt outcomes a run keeps: the last ones, enough to see a pattern, bounded in memory. */
export const ATTEMPT_OUTCOMES_KEPT = 10;

export interface ParkInput {
  owner: string;
  run: RunSpec;
  thread: ChatThread | null;
  records: StoredInteraction[];
  /** Ids of records that stay out of the pending list (asks to the caller). */
  unlisted: ReadonlySet<string>;
}

/** Where parks live: written in one step with their asks, settled by the answer's claim, completed once. */
export interface RunStore {
  /** Writes every ask and parks the run in one step; returns the park's generation. Throws `conflict` refusals. */
  park(input: ParkInput): Promise<number>;
  /** The run, or null when there is none (or its retention passed). */
  get(runId: string): Promise<RunView | null>;
  /**
   * Binds a run id to the chat thread of a conversation turn before the target sees it, so whichever park the
   * target makes under that id keeps the thread. False when the run id is owned by another identity already.
   */
  bindThread(runId: string, owner: string, thread: ChatThread): Promise<boolean>;
  /** Counts one continuation attempt (shown by GET /api/runs/{id}); refreshes the retention. */
  recordAttempt(runId: string): Promise<void>;
  /** Keeps how one resume webhook attempt ended, with the last ATTEMPT_OUTCOMES_KEPT before it. */
  recordOutcome(runId: string, outcome: AttemptOutcome): Promise<void>;
  /** The kept attempt outcomes of park `generation`, oldest first. */
  outcomes(runId: string, generation: number): Promise<AttemptOutcome[]>;
  /**
   * Records that the continuation of park `generation` completed (with `attempts`, when the attempts were counted
   * elsewhere: a handler's); 1 resumed, 2 killed, 0 nothing to do (done already, another park, no such run).
   */
  complete(runId: string, generation: number, attempts?: number): Promise<number>;
  /** Turns a parked run dying because of `cause`; returns its generation, or null when it was not parked. */
  kill(runId: string, cause: string): Promise<number | null>;
  /** Runs that became due before `beforeMs` and have not completed: what a crash may have left unenqueued. */
  dueRuns(beforeMs: number, max: number): Promise<Array<{ runId: string; generation: number }>>;
  close(): Promise<void>;
}

const STATUS_OF_LETTER: Record<string, RunAsk['status']> = { a: 'answered', e: 'expired', c: 'cancelled' };

/**
 * A run as `get` reads it, from its hash's fields with pieced values joined (by `joinPieces`, or by the resolve
 * script, which returns them so for a run it settled ready); null when the hash holds no status (no such run).
 */
export function runView(runId: string, h: Record<string, string>): RunView | null {
  if (h['s'] === undefined) return null;
  const asks: RunAsk[] = [];
  for (const [field, value] of Object.entries(h)) {
    if (!field.startsWith('a:')) continue;
    const letter = value.slice(0, 1);
    asks.push({
      interactionId: field.slice(2),
      status: value === '' ? 'pending' : (STATUS_OF_LETTER[letter] ?? 'cancelled'),
      result: value.length > 1 ? (JSON.parse(value.slice(1)) as AskResult) : null,
    });
  }
  return {
    runId,
    status: h['s'] as RunStatus,
    generation: Number(h['g']),
    owner: h['o'] ?? '',
    kind: h['k'] === 'agent' ? 'agent' : 'tool',
    parentRunId: h['p'] ? h['p'] : null,
    resume: h['rs']?.startsWith('=')
      ? { handler: h['rs'].slice(1) }
      : (JSON.parse(h['rs'] ?? '{}') as RunSpec['resume']),
    state: h['st'] ? (JSON.parse(h['st']) as unknown) : null,
    thread: h['th'] ? (JSON.parse(h['th']) as ChatThread) : null,
    outstanding: Number(h['n'] ?? 0),
    asks,
    killedBy: h['x'] ? h['x'] : null,
    attempts: Number(h['at'] ?? 0),
    parkedAt: h['ca'] ? new Date(Number(h['ca'])).toISOString() : null,
    completedAt: h['ra'] ? new Date(Number(h['ra'])).toISOString() : null,
  };
}
