import { AskgateError } from '../../core/errors.js';
import { recipientName } from './lookups.js';
import type { SettledRun } from '../../core/ports.js';
import type { AttemptOutcome, ParkInput, RunStore, RunView } from '../../runs/run-store.js';
import { ATTEMPT_OUTCOMES_KEPT } from '../../runs/run-store.js';
import { pendingExpiresAt } from '../common.js';
import type { Keys } from '../keys.js';
import { encodeRecord, timeMs } from '../record-codec.js';
import { ownedByAnother } from '../../runs/checkpoints.js';
import { RedisCheckpoints, redisCall } from './checkpoints.js';
import { RedisConnections } from './connections.js';
import { CHECKPOINT_REF_MARK, fieldsOf, resumeArg, runView } from './run-fields.js';
import type { ScriptClient } from './scripts/index.js';

/**
 * The runs side of the Redis store: parks, their run hashes, and the ready-runs index. Its connection is the
 * process's command connection (connections.ts); its scripts are registered there (scripts/index.ts).
 *
 * A run is one hash `r:<run_id>` (key named in keys.ts). Fields:
 *
 * | field     | holds                                                                      |
 * |-----------|----------------------------------------------------------------------------|
 * | `s`       | status: parked → ready | dying → resumed | killed                          |
 * | `g`       | generation: how many times the run has parked (names this park's resume job) |
 * | `o`       | owner: the identity that parked it (the resume runs under it)              |
 * | `k`, `p`  | kind (absent: tool; else agent) and parent run id (absent when none)       |
 * | `rs`      | the resume target: JSON {"webhook": url}, or `=` + name for {"handler": name} |
 * | `st`      | the opaque checkpoint state JSON the caller handed in (absent when none), or `@<ref>` when  |
 * |           | the checkpoint is kept in PostgreSQL (ParkCheckpoints)                                      |
 * | `th`      | the chat thread JSON of a run reached over chat (absent when none)         |
 * | `n`       | asks still outstanding                                                     |
 * | `a:<id>`  | one slot per ask: '' while pending, else status letter + result JSON (in pieces) |
 * | `x`       | what killed it: an interaction id, or run:<child> (absent while not killed) |
 * | `at`      | continuation attempts (absent: 0); `ca` parked at, `ra` completed at (epoch ms) |
 *
 * Memory: the hash is kept listpack-encoded (about 160 bytes for a one-ask park with a handler target; a hashtable
 * would be 500–700). Redis converts a hash for good once any value exceeds `hash-max-listpack-value` (64 bytes by
 * default), so fields holding their default are not written, and the caller-sized values — `o`, `p`, `rs`, `st`,
 * `th`, `x`, and each slot's result — are written in 64-byte pieces: `f` holds the first 64 bytes, `f.1` the next,
 * and so on (scripts/includes/setPieces.lua); `get` joins them byte-exactly. The hash so stays compact through
 * its retention and later parks; only a fan-out of more than about 60 asks (128 fields, `hash-max-listpack-entries`)
 * or a Redis configured below the defaults converts it.
 *
 * A run parked on one ask with no hash yet is folded (scripts/includes/foldedBucketKey.lua): no hash, one field of a bucketed
 * `rf:` hash, about 45 bytes instead of about 210; the step that first needs the hash (the answer's claim, a kill, a
 * bound thread) writes it exactly as park-run would have, and `get` derives the same fields from the folded entry
 * and its record. A run parked on several asks, or parked again, has its hash from the park.
 *
 * A run hash costs nothing for a sync ask: only async asks name a run. Every write refreshes its expiry to the
 * checkpoint retention (LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES), which is the retention the issue asks
 * of the checkpoint, and what the deadline rule in ask-request.ts measures against.
 */

/**
 * The Redis implementation of the run lifecycle's `RunStore` port. Its `checkpoints` (the Checkpoints port) are the
 * checkpoint fields of the same hashes: a park writes both in its one step, and `get` reads both in one.
 */
export class RedisRunStore implements RunStore {
  private readonly client: ScriptClient;
  private readonly keys: Keys;
  readonly checkpoints: RedisCheckpoints;

  /**
   * `connections` stays its owner's to close; `retentionMs` is the checkpoint retention, `idleTtlMs` the store's;
   * `keys` the shard this store names (keys.ts, `forShard`), by default the connections' (shard 0).
   */
  constructor(
    private readonly connections: RedisConnections,
    private readonly retentionMs: number,
    private readonly idleTtlMs: number,
    private readonly ownsConnections = false,
    keys?: Keys,
  ) {
    this.client = connections.command();
    this.keys = keys ?? connections.keys;
    this.checkpoints = new RedisCheckpoints(this.client, this.keys, retentionMs);
  }

  /** A run store with a connection factory of its own (closed by `close()`), connected before it returns. */
  static async connect(options: {
    url: string;
    prefix?: string;
    retentionMs: number;
    idleTtlMs: number;
  }): Promise<RedisRunStore> {
    const connections = new RedisConnections({
      url: options.url,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
    const runs = new RedisRunStore(connections, options.retentionMs, options.idleTtlMs, true);
    try {
      await connections.connect(runs.client);
    } catch (error) {
      await connections.close();
      throw error;
    }
    return runs;
  }

  /** Writes every ask and parks the run in one step (see scripts/park-run-4.lua); returns the park's generation. */
  async park(input: ParkInput): Promise<number> {
    const now = Date.now();
    const args: Array<string | number> = [
      input.owner,
      input.run.kind,
      input.run.parent_run_id ?? '',
      resumeArg(input.run.resume),
      stateArg(input),
      this.retentionMs,
      now,
      this.keys.events,
      input.thread === null ? '' : JSON.stringify(input.thread),
      input.records.length,
    ];
    for (const record of input.records) {
      const { envelope, schema } = encodeRecord(record);
      const deadlineMs = timeMs(record.deadline_at, 'deadline_at');
      args.push(
        record.id,
        envelope,
        pendingExpiresAt(deadlineMs, now, this.idleTtlMs),
        deadlineMs,
        this.keys.interaction(record.id),
        record.group_id === null ? '' : this.keys.group(record.group_id),
        schema === null ? '' : this.keys.schema(schema.hash),
        schema?.json ?? '',
        input.unlisted.has(record.id) ? '' : '1',
        ...(record.channel === null || record.recipient === null
          ? ['', '']
          : [this.keys.recipientBucketPrefix, recipientName(record.channel, record.recipient)]),
      );
    }
    args.push(
      foldedValue(input),
      this.keys.foldedRunsLevel,
      this.keys.foldedRunsPrefix,
      this.keys.interactionPrefix,
      input.run.run_id,
    );
    const code = await this.run(() =>
      this.client.askgateParkRun(
        this.keys.run(input.run.run_id),
        this.keys.pending,
        this.keys.deadlines,
        this.keys.seq,
        ...args,
      ),
    );
    if (code === -1) throw new AskgateError('conflict', 'an ask id is already in use; ask again.');
    if (code === -3)
      throw new AskgateError(
        'conflict',
        `run ${input.run.run_id} is parked already; a run parks on one set of asks at a time (use POST /api/runs for several).`,
        { field: 'run.run_id' },
      );
    if (code === -4) throw ownedByAnother(input.run.run_id);
    return code;
  }

  async get(runId: string): Promise<RunView | null> {
    // The hash (its pieces joined byte-exactly in Lua: a 64-byte piece may split a UTF-8 character), or the fields
    // of a folded park (scripts/run-read-1.lua), in one step.
    const flat = await this.run(() => this.client.askgateRunRead(this.keys.run(runId), ...this.foldedArgs(runId)));
    return runView(runId, fieldsOf(flat));
  }

  /** The resolve script returns the hash of a run it settled ready (SettledRun.fields): read only without them. */
  async settledView(settled: SettledRun): Promise<RunView | null> {
    return settled.fields !== undefined ? runView(settled.runId, settled.fields) : this.get(settled.runId);
  }

  /**
   * Whether the run exists: a hash, or a folded park whose record is still there. Where a run's key was tested with
   * `EXISTS r:<run_id>` (which a folded run has not), ask this instead.
   */
  async exists(runId: string): Promise<boolean> {
    return (await this.run(() => this.client.askgateRunExists(this.keys.run(runId), ...this.foldedArgs(runId)))) === 1;
  }

  /** What the run scripts need to find (and unfold) a folded park: run id, level key, bucket prefix, record prefix. */
  private foldedArgs(runId: string): string[] {
    return [runId, this.keys.foldedRunsLevel, this.keys.foldedRunsPrefix, this.keys.interactionPrefix];
  }

  /** Counts one continuation attempt (shown by GET /api/runs/{id}); refreshes the retention. */
  async recordAttempt(runId: string): Promise<void> {
    const key = this.keys.run(runId);
    await this.run(() => this.client.multi().hincrby(key, 'at', 1).pexpire(key, this.retentionMs).exec());
  }

  /**
   * Keeps how one attempt ended in the run's attempts list (`ro:<run_id>`, apart from the run hash so its JSON never
   * converts the hash out of listpack), trimmed to the last ATTEMPT_OUTCOMES_KEPT, for the run's retention.
   */
  async recordOutcome(runId: string, outcome: AttemptOutcome): Promise<void> {
    const key = this.keys.runAttempts(runId);
    await this.run(() =>
      this.client
        .multi()
        .lpush(key, JSON.stringify(outcome))
        .ltrim(key, 0, ATTEMPT_OUTCOMES_KEPT - 1)
        .pexpire(key, this.retentionMs)
        .exec(),
    );
  }

  async outcomes(runId: string, generation: number): Promise<AttemptOutcome[]> {
    const kept = await this.run(() => this.client.lrange(this.keys.runAttempts(runId), 0, -1));
    return kept
      .map((json) => JSON.parse(json) as AttemptOutcome)
      .filter((o) => o.park === generation)
      .reverse();
  }

  async complete(runId: string, generation: number, attempts?: number): Promise<number> {
    return this.run(() =>
      this.client.askgateRunComplete(
        this.keys.run(runId),
        this.keys.readyRuns,
        generation,
        runId,
        this.retentionMs,
        Date.now(),
        attempts ?? '',
      ),
    );
  }

  /** Turns a parked run dying because of `cause`; returns its generation, or null when it was not parked. */
  async kill(runId: string, cause: string): Promise<number | null> {
    const g = await this.run(() =>
      this.client.askgateRunKill(
        this.keys.run(runId),
        this.keys.readyRuns,
        cause,
        runId,
        this.retentionMs,
        Date.now(),
        ...this.foldedArgs(runId).slice(1),
      ),
    );
    return g < 0 ? null : g;
  }

  /** Runs that became due before `beforeMs` and have not completed: what a crash may have left unenqueued. */
  async dueRuns(beforeMs: number, max: number): Promise<Array<{ runId: string; generation: number }>> {
    const ids = await this.run(() => this.client.zrangebyscore(this.keys.readyRuns, '-inf', beforeMs, 'LIMIT', 0, max));
    if (ids.length === 0) return [];
    // One round trip for every generation, not one per run.
    const read = this.client.pipeline();
    for (const runId of ids) read.hget(this.keys.run(runId), 'g');
    const generations = await this.run(() => read.exec());
    const out: Array<{ runId: string; generation: number }> = [];
    const gone: string[] = [];
    ids.forEach((runId, i) => {
      const [error, g] = generations?.[i] ?? [new Error('no reply')];
      if (error)
        throw new AskgateError('store_unavailable', `Redis command failed: ${error.message}`, { cause: error });
      // A run hash that expired (retention passed) leaves nothing to resume; drop its index entry.
      if (g === null || g === undefined) gone.push(runId);
      else out.push({ runId, generation: Number(g) });
    });
    if (gone.length > 0) await this.run(() => this.client.zrem(this.keys.readyRuns, ...gone));
    return out;
  }

  async close(): Promise<void> {
    if (this.ownsConnections) await this.connections.close();
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return redisCall(call);
  }
}

/**
 * What the `st` field keeps: the state's JSON, '' for none, or — when the checkpoint is kept elsewhere — `@` and its
 * reference, which no JSON text starts with, so the two can never be mistaken (run-fields.ts reads it back).
 */
function stateArg(input: ParkInput): string {
  if (input.checkpointRef !== undefined) return `${CHECKPOINT_REF_MARK}${input.checkpointRef}`;
  return input.run.state === null || input.run.state === undefined ? '' : JSON.stringify(input.run.state);
}

/** The longest folded value, and run id, a folded-runs bucket takes and stays listpack-encoded. */
const FOLD_MAX_BYTES = 64;

/**
 * The folded value of a park (scripts/includes/foldedBucketKey.lua) — its ask's id, the resume target as \`rs\` holds it, and the
 * kind, parent and state when set, joined by newlines, trailing empty parts dropped — or '' when the park is not
 * folded: more than one ask, a chat thread, an owner other than the ask's asker (the owner is read from the record),
 * a newline in a part, or a run id or value longer than a listpack value may be.
 */
function foldedValue(input: ParkInput): string {
  const [record] = input.records;
  if (input.records.length !== 1 || record === undefined || input.thread !== null) return '';
  if (record.asked_by !== input.owner) return '';
  const { run } = input;
  const state = stateArg(input);
  const parts = [record.id, resumeArg(run.resume), run.kind === 'tool' ? '' : run.kind, run.parent_run_id ?? '', state];
  while (parts.length > 2 && parts[parts.length - 1] === '') parts.pop();
  if (parts.some((p) => p.includes('\n'))) return '';
  const value = parts.join('\n');
  if (Buffer.byteLength(value) > FOLD_MAX_BYTES || Buffer.byteLength(run.run_id) > FOLD_MAX_BYTES) return '';
  return value;
}
