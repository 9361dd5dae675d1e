import { continuationPayload, turnThread } from './continuation.js';
import type { ContinuationPayload, ConversationTurnPayload } from './continuation.js';
import type { ChatThread } from './checkpoints.js';
import type { RunView } from './run-store.js';

/**
 * The gateway's own protocol for handler continuations, between the process that enqueues a continuation, the
 * continuation doors that hand it to handler workers over HTTP (src/runs/handler-claims.ts, docs/doors.md,
 * "Continuations") and the askgate worker that records its completion. Handler workers see none of it: they see the
 * continuation body and a lease.
 *
 * Version 2 (what the gateway writes):
 * 1. The gateway adds a handler job to its handler's queue (id: the continuation's `resume_id`), its data a
 *    {@link HandlerJob}: the body the handler receives, plus the version, the park's generation and the thread.
 * 2. A claim taking the job again (a retry, or a job whose lease lapsed) first looks for the {@link REPORTED_FIELD}
 *    field in the job's own hash: present, the continuation completed already; the job is finished, not offered.
 * 3. A complete under the lease, in one atomic step (store/redis/scripts/report-5.lua), sets that field and, before
 *    the job completes, either records the run's completion itself (a park's continuation with no chat reply to post
 *    first: the common case, one round trip) or appends its {@link CompletionJob} report to the completions stream
 *    (`Keys.completions`).
 * 4. The askgate worker reads the stream in the consumer group {@link COMPLETIONS_GROUP}: it queues the chat reply
 *    (the run came from a chat thread), records completion in the run (the run-complete script), then acknowledges
 *    and deletes the entry.
 *
 * A report of any other version is refused unread.
 */
export const JOB_PROTOCOL_VERSION = 2;

/** The versions of completion reports the gateway records. */
export const READ_VERSIONS: readonly number[] = [JOB_PROTOCOL_VERSION];

/** The consumer group of the completions stream: every askgate worker process is a consumer in it. */
export const COMPLETIONS_GROUP = 'askgate';

/**
 * The field a complete sets in its handler job's own hash, in the step that appends the report: a job
 * whose hash holds it has been reported and is never run again. It lives and goes with the job (BullMQ's retention).
 */
export const REPORTED_FIELD = 'askgateReported';

/** What protocol-versioned jobs carry in common. */
interface Versioned {
  /** The protocol version: 2. */
  v: number;
  /** The continuation's id (also its job id). */
  resume_id: string;
  run_id: string;
  /** The park the continuation belongs to; 0 for a conversation turn (it belongs to no park). */
  generation: number;
  /** The chat thread the run came from, where the gateway posts the handler's return value; null when none. */
  thread: ChatThread | null;
}

/**
 * A handler job's data: the continuation body (what the handler receives, without `attempt`) and the envelope. A run
 * whose checkpoint is kept in PostgreSQL carries `checkpoint_ref` instead of its state (`state` is null in the job):
 * the state never passes through Redis, and the claim fills it in (CheckpointClaims) before a worker sees it.
 */
export type HandlerJob = Versioned & { checkpoint_ref?: string } & (ContinuationPayload | ConversationTurnPayload);

/** A completion report's data: a completions stream entry's `r` field (JSON). */
export interface CompletionJob extends Versioned {
  type: (ContinuationPayload | ConversationTurnPayload)['type'];
  /** Which attempt completed (1 on the first run). */
  attempt: number;
  /** The handler's return value (null for undefined). */
  output: unknown;
}

/** The handler job of the park `run` is in (ready or dying), under `resumeId`. */
export function handlerJob(run: RunView, resumeId: string): HandlerJob {
  const payload = continuationPayload(run, resumeId);
  if (run.checkpointRef !== null)
    return {
      v: JOB_PROTOCOL_VERSION,
      generation: run.generation,
      thread: run.thread,
      checkpoint_ref: run.checkpointRef,
      ...payload,
      state: null,
    };
  return { v: JOB_PROTOCOL_VERSION, generation: run.generation, thread: run.thread, ...payload };
}

/** The handler job of a conversation turn. */
export function turnHandlerJob(payload: ConversationTurnPayload): HandlerJob {
  return { v: JOB_PROTOCOL_VERSION, generation: 0, thread: turnThread(payload), ...payload };
}

/** The continuation body a handler receives from its job: the envelope fields stripped. */
export function continuationOf(job: HandlerJob): ContinuationPayload | ConversationTurnPayload {
  const { v: _v, generation: _g, thread: _t, checkpoint_ref: _c, ...payload } = job;
  return payload;
}

/** Why a job of another protocol version cannot be read here, or null when it can. */
export function unsupportedVersion(data: { v?: unknown }, reader: string): string | null {
  if (typeof data.v === 'number' && READ_VERSIONS.includes(data.v)) return null;
  const read = `v${READ_VERSIONS.join(' and v')}`;
  return (
    `job protocol version ${JSON.stringify(data.v ?? null)} is not one ${reader} reads (it reads ${read}); ` +
    'run an askgate gateway and SDK of the same protocol version.'
  );
}
