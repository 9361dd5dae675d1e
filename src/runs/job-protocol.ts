import { continuationPayload, turnThread } from './continuation.js';
import type { ContinuationPayload, ConversationTurnPayload } from './continuation.js';
import type { ChatThread } from './checkpoints.js';
import type { RunView } from './run-store.js';

/**
 * The job protocol between the gateway and SDK continuation workers (docs/sdk.md, "Job protocol"): all a worker
 * knows of the gateway is the handler queues, the completions stream and the data below. It never reads a run or
 * runs the gateway's Lua.
 *
 * Version 2 (what the gateway writes):
 * 1. The gateway adds a handler job to `handler-<name>` (id: the continuation's `resume_id`), its data a
 *    {@link HandlerJob}: the body the handler receives, plus the version, the park's generation and the thread.
 * 2. A worker running the job again (a retry, or a job taken back from a stalled worker) first looks for the
 *    {@link REPORTED_FIELD} field in the job's own hash: present, the continuation completed already and is not run.
 * 3. It runs the handler, then in one atomic step (a MULTI, or the report script of store/redis/scripts/report-2.lua
 *    as this package's worker runs) sets that field and appends its {@link CompletionJob} report to the completions
 *    stream (`Keys.completions`), before its handler job completes.
 * 4. The askgate worker reads the stream in the consumer group {@link COMPLETIONS_GROUP}: it queues the chat reply
 *    (when the run came from a chat thread), records completion in the run (the run-complete script), then
 *    acknowledges and deletes the entry.
 *
 * Version 1 (kept for handler jobs an older gateway added): steps 2–4 went through a `completed` BullMQ queue — the
 * look for a report was a job of that id there, the report a job added there. That cost three BullMQ scripts and a
 * blocking pop per continuation (bench/README.md, issue 12); a stream entry costs an XADD, a share of one
 * XREADGROUP, an XACK and an XDEL. The gateway still drains `completed` (completion-worker.ts).
 *
 * Compatibility: the gateway writes version 2 and reads reports of both; the SDK worker reads handler jobs of both
 * and answers each in its own version's way. A job of any other version fails at once (no retries) with a message
 * saying which versions the reader speaks.
 */
export const JOB_PROTOCOL_VERSION = 2;

/** The versions of handler jobs an SDK worker of this package runs, and of reports the gateway records. */
export const READ_VERSIONS: readonly number[] = [1, 2];

/** Version 1's queue of completion reports, drained by the askgate worker. */
export const COMPLETED_QUEUE = 'completed';

/** The consumer group of the completions stream: every askgate worker process is a consumer in it. */
export const COMPLETIONS_GROUP = 'askgate';

/**
 * The field a version-2 SDK worker sets in its handler job's own hash, in the step that appends the report: a job
 * whose hash holds it has been reported and is never run again. It lives and goes with the job (BullMQ's retention).
 */
export const REPORTED_FIELD = 'askgateReported';

/** What protocol-versioned jobs carry in common. */
interface Versioned {
  /** The protocol version: 2 (1 in jobs an older gateway added). */
  v: number;
  /** The continuation's id (also its job id, in both queues). */
  resume_id: string;
  run_id: string;
  /** The park the continuation belongs to; 0 for a conversation turn (it belongs to no park). */
  generation: number;
  /** The chat thread the run came from, where the gateway posts the handler's return value; null when none. */
  thread: ChatThread | null;
}

/** A handler job's data: the continuation body (what the handler receives, without `attempt`) and the envelope. */
export type HandlerJob = Versioned & (ContinuationPayload | ConversationTurnPayload);

/** A completion report's data: a version-2 stream entry's `r` field (JSON), or a version-1 `completed` job. */
export interface CompletionJob extends Versioned {
  type: (ContinuationPayload | ConversationTurnPayload)['type'];
  /** Which attempt completed (1 on the first run). */
  attempt: number;
  /** The handler's return value (null for undefined). */
  output: unknown;
}

/** The handler job of the park `run` is in (ready or dying), under `resumeId`. */
export function handlerJob(run: RunView, resumeId: string): HandlerJob {
  return {
    v: JOB_PROTOCOL_VERSION,
    generation: run.generation,
    thread: run.thread,
    ...continuationPayload(run, resumeId),
  };
}

/** The handler job of a conversation turn. */
export function turnHandlerJob(payload: ConversationTurnPayload): HandlerJob {
  return { v: JOB_PROTOCOL_VERSION, generation: 0, thread: turnThread(payload), ...payload };
}

/** The continuation body a handler receives from its job: the envelope fields stripped. */
export function continuationOf(job: HandlerJob): ContinuationPayload | ConversationTurnPayload {
  const { v: _v, generation: _g, thread: _t, ...payload } = job;
  return payload;
}

/** Why a job of another protocol version cannot be read here, or null when it can. */
export function unsupportedVersion(data: { v?: unknown }, reader: string): string | null {
  if (typeof data.v === 'number' && READ_VERSIONS.includes(data.v)) return null;
  return `job protocol version ${JSON.stringify(data.v ?? null)} is not one ${reader} reads (it reads v${READ_VERSIONS.join(' and v')}); run an askgate gateway and SDK of the same protocol version.`;
}
